"""trace_pairs and eval_temporal_overlay materialized by Dagster on stub upstream assets."""

import json
from datetime import UTC, datetime

import pytest

from resources.settings_resource import AnalysisSettings
from rl_assets.assets.q3_overlay import eval_temporal_overlay
from rl_assets.assets.q3_trace_pairs import trace_pairs
from rl_assets.values.handover import NotApplicable
from support.handover_refs import trace_ref
from support.q3_synth import XSS, row, write

MODEL = "org/rl-model-8B"


@pytest.fixture
def world(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    acts = ["ls", "cat README.md", "make"]
    base = [row(f"t{i}", a, 0.0 if i < 3 else 1.0, acts, extra=XSS) for i in range(5) for a in range(3)]
    post = [row(f"t{i}", a, 1.0, acts[:1] + ["pytest"] + acts[2:], side="a") for i in range(5) for a in range(3)]
    for r, h in zip(base, range(len(base))):
        r["date"] = datetime(2026, 4, 22, 9, h, tzinfo=UTC)
    refs = {
        "baseline_traces": trace_ref(write(tmp_path / "b.parquet", base), "hf:org/base-evals", revision="r1"),
        "post_rl_traces": trace_ref(write(tmp_path / "a.parquet", post), "hf:org/rl-evals", revision="r2"),
        "eval_pair": {
            "baseline_eval_ts": "2026-04-22T09:00:00+00:00",
            "post_rl_eval_ts": "2026-05-22T09:00:00+00:00",
            "benchmark": "tbm",
        },
    }
    return tmp_path, refs


def test_trace_pairs_writes_one_escaped_page_with_divergences(world, materialize_partition):
    tmp_path, refs = world
    stubs = {k: refs[k] for k in ("baseline_traces", "post_rl_traces")}
    result = materialize_partition(
        [trace_pairs],
        MODEL,
        stubs=stubs,
        resources={"settings": AnalysisSettings(pair_top_n=4)},
        run_config={"ops": {"trace_pairs": {"config": {"mode": "flips"}}}},
    )
    assert result.success
    out = result.output_for_node("trace_pairs")
    assert out["n_pairs"] == 4 and out["common_tasks"] == 5
    assert [p["divergence_action"] for p in out["pairs"]] == [1, 1, 1, 1]
    assert [p["reason"].startswith("outcome flip") for p in out["pairs"]] == [True, True, True, False]
    html = (tmp_path / "home" / "reports" / "org--rl-model-8B" / "Q3_trace_pairs" / "pairs.html").read_text()
    assert "<script>window.__xss" not in html and "&lt;script&gt;window.__xss=1" in html
    checks = result.get_asset_check_evaluations()
    assert [c.passed for c in checks] == [True]


def test_overlay_without_rl_traces_still_writes_markers(world, materialize_partition):
    tmp_path, refs = world
    reason = "not applicable: no RL rollout dataset for org/rl-model-8B (tried ['org/rl-model'])"
    stubs = {**refs, "rl_traces": NotApplicable(repo_id=MODEL, reason=reason)}
    result = materialize_partition(
        [eval_temporal_overlay], MODEL, stubs=stubs, resources={"settings": AnalysisSettings()}
    )
    assert result.success
    folder = tmp_path / "home" / "reports" / "org--rl-model-8B" / "Q3_temporal_overlay"
    data = json.loads((folder / "overlay.json").read_text())
    assert data["notes"] == [f"no RL-trace dataset: {reason}"]
    assert [m["mean_reward"] for m in data["eval"]] == [0.4, 1.0] and all(m["plotted"] for m in data["eval"])
    assert (folder / "overlay.png").stat().st_size > 10_000


def test_overlay_with_rl_traces_bins_rollouts(world, materialize_partition):
    tmp_path, refs = world
    rollouts = [row(f"r{i}", 0, float(i % 2), ["ls"], side="r") for i in range(12)]
    for i, r in enumerate(rollouts):
        r["date"] = datetime(2026, 5, 20, 2 + i, 30, tzinfo=UTC)
    rl = trace_ref(write(tmp_path / "rl.parquet", rollouts), "hf:org/rl-model", repo_id=MODEL)
    result = materialize_partition(
        [eval_temporal_overlay],
        MODEL,
        stubs={**refs, "rl_traces": rl},
        resources={"settings": AnalysisSettings(bin_hours=4.0)},
    )
    data = json.loads(
        (tmp_path / "home" / "reports" / "org--rl-model-8B" / "Q3_temporal_overlay" / "overlay.json").read_text()
    )
    assert result.success and data["rl_applicable"] and data["notes"] == []
    assert [p["bin_start"][11:16] for p in data["rl"]["points"]] == ["00:00", "04:00", "08:00", "12:00"]


def test_a_failed_overlay_run_leaves_the_previous_folder_whole(world, materialize_partition, monkeypatch):
    """The overlay folder is written once: a plot that fails leaves the earlier overlay.json and overlay.png
    together, never a new overlay.json beside the old plot."""
    import rl_assets.analysis.q3.report as q3_report

    tmp_path, refs = world
    stubs = {**refs, "rl_traces": NotApplicable(repo_id=MODEL, reason="no RL rollouts")}
    resources = {"settings": AnalysisSettings()}
    assert materialize_partition([eval_temporal_overlay], MODEL, stubs=stubs, resources=resources).success
    folder = tmp_path / "home" / "reports" / "org--rl-model-8B" / "Q3_temporal_overlay"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    def broken_plot(result):
        raise RuntimeError("matplotlib could not draw")

    monkeypatch.setattr(q3_report, "plot_overlay", broken_plot)
    stubs["eval_pair"] = {**refs["eval_pair"], "benchmark": "another-benchmark"}
    result = materialize_partition(
        [eval_temporal_overlay], MODEL, stubs=stubs, resources=resources, raise_on_error=False
    )
    assert not result.success
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
