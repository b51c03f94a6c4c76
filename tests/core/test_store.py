"""The store (rl_assets/store.py): hand-overs under RLDELTA_STORAGE, on a local path or an fsspec URL,
with what an older rldelta kept in the home folder still read."""

import uuid

import dagster as dg
import fsspec
import pytest

from resources.llm import LLMResource
from resources.llm.cache import LLMCache
from rl_assets import store
from rl_assets.cli import QUIET
from rl_assets.demo.constants import ALPHA
from rl_assets.partitions import slug
from rl_assets.support.failure_modes_store import latest_table
from rl_assets.support.trace_tables import ingest_addressed, ingest_once, key_digest, source_key, stamp_path

LOCAL_LLM = "http://127.0.0.1:9/v1"  # an endpoint configured (the cache is used); nothing is called here


def test_paid_llm_answers_move_to_the_storage_root_and_the_old_cache_is_still_read(rldelta_home):
    old = LLMCache(rldelta_home / "cache" / "llm" / "cache", "judge")  # where rldelta kept them before
    old.put("k" * 64, {"winner": "post"})
    client = LLMResource(base_url=LOCAL_LLM).session("judge", "org/m-8B")
    assert client.cache.dir == rldelta_home / "storage" / "llm" / "cache" / "judge"
    assert client.cache.get("k" * 64) == {"winner": "post"}  # found in the old place, not paid again
    assert len(client.cache) == 1  # ... and copied into the shared one
    assert client.cache.get("x" * 64) is None


def test_an_explicit_cache_root_has_no_fallback(rldelta_home, tmp_path):
    LLMCache(rldelta_home / "cache" / "llm" / "cache", "judge").put("k" * 64, 1)
    client = LLMResource(base_url=LOCAL_LLM, cache_root=str(tmp_path / "mine")).session("judge", "org/m-8B")
    assert client.cache.get("k" * 64) is None


def test_a_url_storage_root_needs_a_shared_llm_cache_folder(rldelta_home, monkeypatch, tmp_path):
    monkeypatch.setenv("RLDELTA_STORAGE", "memory://bucket/rldelta")
    with pytest.raises(store.StoreError, match="RLDELTA_STORAGE=memory://bucket/rldelta.*RLDELTA_LLM_CACHE"):
        LLMResource(base_url=LOCAL_LLM).session("judge", "org/m-8B")
    monkeypatch.setenv("RLDELTA_LLM_CACHE", str(tmp_path / "shared-llm"))
    assert (
        LLMResource(base_url=LOCAL_LLM).session("judge", "org/m-8B").cache.dir
        == tmp_path / "shared-llm" / "cache" / "judge"
    )


def _source(tmp_path):
    src = tmp_path / "rows.jsonl"
    src.write_text('{"conversations": [], "task": "t", "trial_name": "t__1", "result": "1.0"}\n')
    return str(src)


def test_a_trace_table_an_older_version_built_in_the_home_is_adopted_not_reingested(
    rldelta_home, tmp_path, monkeypatch
):
    spec = _source(tmp_path)
    digest = key_digest(source_key(None, spec, max_rows=None, tokenizer=None, benchmark="b"))
    legacy = rldelta_home / "tables" / "baseline_traces" / slug("org/m-8B") / f"{digest}.parquet"
    ingest_once(None, spec, legacy, benchmark="b")
    import rl_assets.ingest

    monkeypatch.setattr(rl_assets.ingest, "ingest_source", lambda *a, **k: pytest.fail("re-ingested"))
    got = ingest_addressed(None, spec, "baseline_traces", "org/m-8B", benchmark="b")
    assert got["reused"] and got["rows"] == 1 and got["data_version"] == digest
    assert got["path"] == str(
        rldelta_home / "storage" / "tables" / "baseline_traces" / "org--m-8B" / f"{digest}.parquet"
    )
    assert store.exists(got["path"]) and store.exists(stamp_path(got["path"]))
    assert legacy.exists()  # the old table is left where old stored values point


def test_the_failure_mode_table_an_older_version_pointed_at_is_still_found(rldelta_home):
    folder = rldelta_home / "tables" / "failure_modes" / "org--m-8B"
    folder.mkdir(parents=True)
    (folder / "run-1.parquet").write_bytes(b"PAR1")
    (folder / "LATEST").write_text("run-1.parquet")
    assert latest_table(None, "org/m-8B") == str(folder / "run-1.parquet")


def test_analyze_model_runs_with_an_object_store_root(rldelta_home, monkeypatch):
    """RLDELTA_STORAGE as a URL (fsspec's in-memory file system): every hand-over lands there."""
    from rl_assets.definitions import defs
    from rl_assets.demo import build_world

    build_world(None, scale=0.25, registry=True)
    root = f"memory://rldelta-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("RLDELTA_STORAGE", root)
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("models", [ALPHA])
    result = defs.resolve_job_def("analyze_model").execute_in_process(
        instance=instance, partition_key=ALPHA, run_config=QUIET, raise_on_error=False
    )
    failed = [e.step_key for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    assert result.success, failed
    fs, base = fsspec.core.url_to_fs(root)
    tables = {p.split("/tables/", 1)[1].split("/")[0] for p in fs.find(f"{base}/tables")}
    assert {"baseline_traces", "post_rl_traces", "rl_traces", "failure_modes", "training_steps"} <= tables, tables
    assert fs.find(f"{base}/training_metrics") and fs.find(f"{base}/behavioral_delta")  # the values
    assert not (rldelta_home / "storage").exists() and not (rldelta_home / "tables").exists()
    assert (store.report_dir(ALPHA) / "Q2_rl_temporal" / "report.json").exists()  # reports stay local outputs
    fs.rm(base, recursive=True)


def test_a_relative_storage_root_hands_over_absolute_locations(rldelta_home, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RLDELTA_STORAGE", "shared")
    assert str(store.trace_table_folder("baseline_traces", "org/m-8B")) == str(
        tmp_path / "shared" / "tables" / "baseline_traces" / "org--m-8B"
    )


def test_a_table_returned_as_a_value_is_refused_with_the_way_out(tmp_path, monkeypatch):
    import pyarrow as pa

    from resources.io_manager import RlDeltaIOManager

    monkeypatch.setenv("RLDELTA_STORAGE", str(tmp_path))
    io = RlDeltaIOManager()
    with pytest.raises(TypeError, match="returned a table: write it with rl_assets.store"):
        io.handle_output(dg.build_output_context(asset_key=dg.AssetKey("x"), run_id="r1"), pa.table({"a": [1]}))


def test_a_training_metrics_value_from_before_the_store_fails_rl_temporal_clearly(rldelta_home, tmp_path):
    """Such a value named a report file (metrics_path); reports are not read back: re-materialize it."""
    import json

    from resources.io_manager import RlDeltaIOManager
    from resources.settings_resource import AnalysisSettings
    from rl_assets.assets.q2_rl_temporal import rl_temporal
    from support.dagster_run import materialize_partition

    src = tmp_path / "rollouts.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {
                    "conversations": [],
                    "task": f"t{i}",
                    "trial_name": f"t{i}__a",
                    "result": "1.0",
                    "date": f"2026-05-01T{i:02d}:00:00Z",
                }
            )
            + "\n"
            for i in range(6)
        )
    )
    table = ingest_once(
        None, str(src), store.trace_table_folder("rl_traces", "org/m-8B") / "rl.parquet"
    )  # in the store:
    # values name no other place; a plain dict as an older rldelta stored it (loads as a TraceTableRef)
    rl_ref = {"applicable": True, "path": table["path"], "rows": 6, "source": str(src), "repo_id": "org/m-8B"}
    old = {"applicable": True, "metrics_path": str(rldelta_home / "reports" / "org--m-8B" / "metrics.parquet")}
    result = materialize_partition(
        [rl_temporal],
        "org/m-8B",
        stubs={"rl_traces": rl_ref, "training_metrics": old},
        resources={"settings": AnalysisSettings(n_boot=50), "io_manager": RlDeltaIOManager()},
        raise_on_error=False,
    )
    (failure,) = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    error = failure.event_specific_data.error.to_string()
    assert "of training_metrics is not a StepTableRef or NotApplicable" in error
    assert "metrics_path" in error and "re-materialize that asset" in error
