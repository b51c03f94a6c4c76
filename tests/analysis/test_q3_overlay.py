"""Overlay: Q2's UTC bin edges, one reward definition on line and markers, readable co-located markers."""

from datetime import UTC, timedelta

import pandas as pd

from rl_assets.analysis.q2.temporal import bin_edges
from rl_assets.analysis.q3.overlay import build_overlay, eval_marker, rl_line, spread
from rl_assets.analysis.q3.report import plot_overlay
from rl_assets.values.handover import NotApplicable, TraceTableRef


def rollouts():
    t0 = pd.Timestamp("2026-05-20T02:10:00Z")
    rows = []
    for h in range(10):  # hour h: one success, one agent error (counts 0), one infra error (dropped)
        t = t0 + pd.Timedelta(hours=h)
        rows += [
            {"task_id": f"r{h}", "date": t, "reward": 1.0, "error_type": None, "is_infra_error": False},
            {"task_id": f"r{h}", "date": t, "reward": None, "error_type": "AgentTimeoutError", "is_infra_error": False},
            {"task_id": f"r{h}", "date": t, "reward": None, "error_type": "DaytonaError", "is_infra_error": True},
        ]
    return pd.DataFrame(rows)


def test_rl_line_uses_the_q2_bin_edges_and_the_shared_reward_definition():
    df = rollouts()
    line = rl_line(df, 4.0)
    edges = bin_edges(df["date"].min(), df["date"].max(), 4.0)
    assert line["edges"] == [e.isoformat() for e in edges]
    assert line["edges"][0] == "2026-05-20T00:00:00+00:00"  # aligned to the UTC epoch, not the first rollout
    assert [p["mean_reward"] for p in line["points"]] == [0.5, 0.5, 0.5]  # 1 and 0 per hour; infra rows dropped
    assert [p["n"] for p in line["points"]] == [4, 8, 8]
    assert line["points"][0]["partial"] is True


def test_eval_marker_counts_errors_as_zero_and_drops_infra():
    df = pd.DataFrame(
        {
            "reward": [1.0, 0.0, None, None],
            "error_type": [None, None, "AgentTimeoutError", "DaytonaError"],
            "is_infra_error": [False, False, False, True],
        }
    )
    m = eval_marker(df, label="post-RL", kind="post_rl", source="hf:x", timestamp="2026-05-22T09:00:00+02:00")
    assert m["mean_reward"] == 1 / 3 and m["n"] == 3 and m["n_infra_dropped"] == 1
    assert m["timestamp"] == "2026-05-22T07:00:00+00:00" and m["plotted"]
    missing = eval_marker(df, label="baseline", kind="baseline", source="hf:y", timestamp=None)
    assert not missing["plotted"] and missing["why_not_plotted"] == "no timestamp"


def _marker(kind, ts):
    return {"label": kind, "kind": kind, "timestamp": ts, "plotted": True, "mean_reward": 0.4, "n": 10}


def test_co_located_markers_are_spread_symmetrically_with_their_own_label_slot():
    same = "2026-05-22T09:00:00+00:00"
    out = spread(
        [_marker("post_rl", same), _marker("baseline", same), _marker("later", "2026-05-25T09:00:00+00:00")],
        timedelta(hours=80),
    )
    by = {m["kind"]: m for m in out}
    assert by["baseline"]["x_offset_s"] == -by["post_rl"]["x_offset_s"] == -1800.0  # span/80 = 1 h, baseline left
    assert {by["baseline"]["label_slot"], by["post_rl"]["label_slot"]} == {0, 1}
    assert by["baseline"]["co_located"] and not by["later"]["co_located"] and by["later"]["x_offset_s"] == 0


def test_without_rl_traces_the_markers_are_still_drawn_and_the_reason_stated():
    markers = [_marker("baseline", "2026-04-22T09:00:00+00:00"), _marker("post_rl", "2026-05-22T09:00:00+00:00")]
    result = build_overlay(None, "not applicable: no RL rollout dataset for org/m", markers, 4.0)
    assert result["rl"] is None and not result["rl_applicable"]
    assert result["notes"][0] == "no RL-trace dataset: not applicable: no RL rollout dataset for org/m"
    assert "errors count as 0" in result["reward_definition"] and "dropped" in result["reward_definition"]
    png = plot_overlay(result)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_full_overlay_plots_line_and_markers():
    df = rollouts()
    markers = [_marker("baseline", "2026-05-20T05:00:00+00:00"), _marker("post_rl", "2026-05-20T05:00:00+00:00")]
    result = build_overlay(df, None, markers, 4.0)
    assert result["notes"] == [] and len(result["rl"]["points"]) == 3
    assert len(plot_overlay(result)) > 10_000


def test_q2_rl_temporal_and_q3_overlay_assets_report_the_same_rl_curve(tmp_path, monkeypatch, materialize_partition):
    """Both assets on the same rollouts (graded rewards, agent errors, infra errors): the Q2 bin
    table's headline and the Q3 RL line are the same numbers, and attribution uses that headline."""
    import json
    from datetime import datetime

    from resources.settings_resource import AnalysisSettings
    from rl_assets.assets.q2_rl_temporal import rl_temporal
    from rl_assets.assets.q3_overlay import eval_temporal_overlay
    from support.q3_synth import row, write

    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    model = "org/rl-same-8B"
    rows = []
    for i in range(36):  # 6 bins of 4 h; rewards 0, .25, .5, .75, agent error, infra error
        kind = i % 6
        r = row(
            f"r{i % 5}",
            i,
            None if kind >= 4 else kind / 4,
            ["ls"],
            side="r",
            error={4: "AgentTimeoutError", 5: "DaytonaError"}.get(kind),
            infra=kind == 5,
        )
        r["date"] = datetime(2026, 5, 20, (i * 2 + 1) // 3, 10, tzinfo=UTC)
        rows.append(r)
    ev = [row("t0", 0, 1.0, ["ls"])]
    for r in ev:
        r["date"] = datetime(2026, 5, 19, tzinfo=UTC)
    ref = TraceTableRef(path=write(tmp_path / "ev.parquet", ev), rows=len(ev), source="hf:org/ev")
    values = {
        "rl_traces": TraceTableRef(
            path=write(tmp_path / "rl.parquet", rows), rows=len(rows), source="hf:org/rl", repo_id=model
        ),
        "training_metrics": NotApplicable(repo_id=model, reason="none"),
        "baseline_traces": ref,
        "post_rl_traces": ref,
        "eval_pair": {"baseline_eval_ts": "2026-05-19T00:00:00+00:00", "post_rl_eval_ts": None},
    }

    result = materialize_partition(
        [rl_temporal, eval_temporal_overlay],
        model,
        stubs=values,
        resources={"settings": AnalysisSettings(bin_hours=4.0, n_boot=200)},
    )
    assert result.success
    folder = tmp_path / "home" / "reports" / model.replace("/", "--")
    q2 = json.loads((folder / "Q2_rl_temporal" / "report.json").read_text())
    q3 = json.loads((folder / "Q3_temporal_overlay" / "overlay.json").read_text())
    curve = [b["mean_reward"] for b in q2["bins"]]
    assert len(curve) == 6 and curve == [p["mean_reward"] for p in q3["rl"]["points"]]
    assert [[b["mean_reward_lo"], b["mean_reward_hi"]] for b in q2["bins"]] == [
        p["mean_reward_ci"] for p in q3["rl"]["points"]
    ]
    assert curve[0] == 0.3  # (0 + .25 + .5 + .75 + 0) / 5: errors 0, the infra error dropped
    assert q2["bins"][0]["share_reward_gt0"] == 0.6  # the secondary column is a different number
    assert q2["attribution"]["reward_trend"]["first_bin"] == curve[0]  # attribution uses the headline
    assert q2["reward_definition"] in q3["reward_definition"]
