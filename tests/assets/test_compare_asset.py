"""`model_comparison` materialized over a small registry: pinned benchmark, exclusions, no stale cache."""

import json
from datetime import UTC, datetime

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from resources.hub import HubResource
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.model_comparison import model_comparison

T = datetime(2026, 5, 1, tzinfo=UTC)


def _dataset(hub, name, passes):
    rows = [
        {
            "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
            "task": f"t{i}",
            "trial_name": f"t{i}__x",
            "date": "2026-05-01T00:00:00Z",
            "result": "1.0" if p else "0.0",
        }
        for i, p in enumerate(passes)
    ]
    folder = hub / "datasets" / "org" / name / "data"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "train-00000-of-00001.parquet")


def _job(jid, model, bench, dataset):
    return {
        "id": jid,
        "created_at": T,
        "ended_at": T,
        "model_id": model,
        "benchmark_id": bench,
        "job_status": "Finished",
        "metrics": {"accuracy": 0.5},
        "hf_traces_link": f"https://huggingface.co/datasets/org/{dataset}",
    }


@pytest.fixture
def instance(tmp_path, monkeypatch, partition_instance):
    home = tmp_path / "home"
    monkeypatch.setenv("RLDELTA_HOME", str(home))
    _dataset(home / "hub", "base-b1", [0, 1] * 10)
    _dataset(home / "hub", "good-b1", [1] * 18 + [0, 1])
    _dataset(home / "hub", "flat-b1", [0, 1] * 10)
    _dataset(home / "hub", "other-b2", [1] * 20)
    reg = SqlRegistry(f"sqlite:///{home / 'registry.sqlite'}")
    reg.create_all()
    reg.insert("benchmarks", [{"id": "b1", "name": "pinned-bench"}, {"id": "b2", "name": "other-bench"}])
    reg.insert(
        "models",
        [{"id": "base", "name": "org/base-8B"}]
        + [{"id": m, "name": f"org/{m}-8B", "base_model_id": "base"} for m in ("good", "flat", "other")],
    )
    reg.insert(
        "sandbox_jobs",
        [
            _job("j0", "base", "b1", "base-b1"),
            _job("j1", "good", "b1", "good-b1"),
            _job("j2", "flat", "b1", "flat-b1"),
            _job("j3", "other", "b2", "other-b2"),
        ],
    )
    return partition_instance("org/good-8B", "org/flat-8B", "org/other-8B"), home


def run(instance, settings=None):
    resources = {
        "hub": HubResource(),
        "registry": RegistryResource(),
        "settings": settings or AnalysisSettings(n_boot=500),
    }
    return dg.materialize(
        [model_comparison],
        instance=instance,
        resources=resources,
        run_config={"ops": {"model_comparison": {"config": {"benchmark": "pinned-bench"}}}},
    )


def test_comparison_ranks_models_on_the_pinned_benchmark(instance):
    inst, home = instance
    assert run(inst).success
    result = json.loads((home / "reports" / "model_comparison" / "comparison.json").read_text())
    assert [r["model_id"] for r in result["ranked"]] == ["org/good-8B", "org/flat-8B"]
    assert result["ranked"][0]["delta"] == pytest.approx(0.45) and result["ranked"][1]["delta"] == 0
    assert [e["model_id"] for e in result["excluded"]] == ["org/other-8B"]  # evaluated on another benchmark only
    md = (home / "reports" / "model_comparison" / "comparison.md").read_text()
    assert "pinned-bench" in md and "## Task pairing" in md
    # one pairing row per ranked model: every task paired, by task id (these rows carry no question)
    assert [
        (g["group"], g["paired"], g["only_before"], g["only_after"], g["how"]) for g in result["pairing"]["groups"]
    ] == [(m, 20, 0, 0, {"task_id": 20}) for m in ("org/flat-8B", "org/good-8B")]


def test_a_row_capped_run_never_leaves_a_truncated_table_for_a_full_run(instance):
    inst, home = instance
    assert run(inst, AnalysisSettings(n_boot=500, max_rows=4)).success
    capped = json.loads((home / "reports" / "model_comparison" / "comparison.json").read_text())
    assert run(inst).success
    full = json.loads((home / "reports" / "model_comparison" / "comparison.json").read_text())
    assert {r["n_common_tasks"] for r in full["ranked"]} == {20}
    assert all(r["n_common_tasks"] < 20 for r in capped["ranked"] + capped["not_enough_data"])


def test_no_pinned_benchmark_is_a_clear_failure(instance, monkeypatch):
    inst, _ = instance
    monkeypatch.delenv("RLDELTA_COMPARE_BENCHMARK", raising=False)
    result = dg.materialize(
        [model_comparison],
        instance=inst,
        raise_on_error=False,
        resources={"hub": HubResource(), "registry": RegistryResource(), "settings": AnalysisSettings()},
    )
    failure = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE][0]
    assert "pinned benchmark" in failure.event_specific_data.error.message
