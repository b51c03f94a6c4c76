"""The lineage's significance rule, persistence, step shapes, label paths and rollout windows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.lineage.emergence import emergence, holm_mark, how_it_moved
from rl_assets.analysis.lineage.families import label_path
from rl_assets.analysis.lineage.rollouts import place_on_steps, rollout_windows, window
from rl_assets.analysis.stats.trend import spearman_permutation_p


def cell(step, delta, lo, hi, p=0.001, significant=None):
    c = {"repo_id": f"org/j-{step}-8B", "step": step, "delta": delta, "lo": lo, "hi": hi, "p": p}
    if significant is not None:
        c["significant"] = significant
    return c


def test_holm_runs_over_every_cell_of_the_lineage_not_per_checkpoint():
    # p = 0.02 passes Holm over one checkpoint's 2 features (0.04) but not over 3 checkpoints x 2 (0.12).
    cells = [cell(s, -1, -2, -0.5, p=0.02) for s in (1, 2, 3)] + [cell(s, 0, -1, 1, p=0.9) for s in (1, 2, 3)]
    holm_mark(cells)
    assert [c["p_lineage"] for c in cells[:3]] == pytest.approx([0.12, 0.12, 0.12])
    assert not any(c["significant"] for c in cells)
    strong = [cell(1, -1, -2, -0.5, p=0.001), cell(2, -1, -2, 0.1, p=0.001)]  # CI includes 0: never significant
    holm_mark(strong)
    assert [c["significant"] for c in strong] == [True, False]


def test_emergence_persistence_faded_reversed_and_last():
    rise = [
        cell(1, 0.1, -0.1, 0.3, significant=False),
        cell(2, 0.5, 0.2, 0.8, significant=True),
        cell(3, 0.4, 0.1, 0.7, significant=False),
    ]
    e = emergence(rise)
    assert (e["first_step"], e["direction"], e["persists"], e["status"]) == (2, "increase", True, "persists")
    faded = rise[:2] + [cell(3, 0.1, -0.1, 0.3, significant=False)]
    assert emergence(faded)["status"] == "faded at step 3 (org/j-3-8B)" and emergence(faded)["persists"] is False
    reversed_ = rise[:2] + [cell(3, -0.4, -0.7, -0.1, significant=True)]
    assert emergence(reversed_)["status"].startswith("reversed at step 3")
    assert emergence(rise[:2])["persists"] is None and emergence(rise[:1])["status"] == "never significant"


def test_how_it_moved_counts_significant_steps_in_the_emergence_direction():
    cells = [cell(1, -0.2, -0.3, -0.1, significant=True), cell(2, -0.4, -0.5, -0.3), cell(3, -0.6, -0.7, -0.5)]

    def steps(*flags):
        return [
            {
                "from": f"org/j-{i + 1}-8B",
                "to": f"org/j-{i + 2}-8B",
                "features": {
                    "f": cell(i + 2, -0.2, -0.3, -0.1, significant=s)
                    if s is not None
                    else cell(i + 2, 0.2, 0.1, 0.3, significant=True)
                },
            }
            for i, s in enumerate(flags)
        ]

    assert how_it_moved("f", cells, steps(True, True), "decrease")["shape"] == "gradual"
    assert how_it_moved("f", cells, steps(False, False), "decrease")["shape"] == "at once"
    later = [cell(1, -0.1, -0.2, 0.05, significant=False)] + cells[1:]
    assert how_it_moved("f", later, steps(False, False), "decrease")["shape"] == "accumulated"
    assert how_it_moved("f", later, steps(None, True), "decrease")["shape"] == "at once"  # opposite step ignored
    missing = [{"from": "a", "to": "b", "unavailable": "no table"}]
    assert how_it_moved("f", cells, missing, "decrease") == {"shape": "unknown", "why": "no table", "steps": []}


def test_label_path_emerges_on_a_change_label_and_persists_only_if_it_stays():
    path = label_path(
        [{"step": s, "repo_id": f"m{s}", "label": lab} for s, lab in ((1, "no real gain"), (2, "gamed"), (3, "gamed"))]
    )
    assert (path["label"], path["at_step"], path["persists"]) == ("gamed", 2, True)
    changed = label_path(
        [{"step": 1, "repo_id": "m1", "label": "mostly format"}, {"step": 2, "repo_id": "m2", "label": "real skill"}]
    )
    assert changed["persists"] is False and changed["status"] == "became real skill at step 2"
    assert label_path([{"step": 1, "repo_id": "m1", "label": "no change"}])["label"] is None


def test_permutation_trend_p_is_small_for_a_trend_and_not_for_noise():
    rng = np.random.default_rng(0)
    x = np.repeat(np.arange(20), 10)
    rho, p = spearman_permutation_p(x, -x + rng.normal(0, 3, len(x)))
    assert rho < -0.5 and p < 0.001
    rho, p = spearman_permutation_p(x, rng.normal(0, 1, len(x)))
    assert p > 0.05
    assert spearman_permutation_p(x, np.ones(len(x))) == (pytest.approx(np.nan, nan_ok=True), 1.0)


def test_window_brackets_a_step_change_and_spreads_for_a_linear_one():
    steps = np.repeat(np.arange(1, 21), 8).astype(float)
    jump = np.where(steps >= 12, 0.0, 1.0)
    start, end = window(steps, jump)
    assert 10 <= start <= end <= 13
    start, end = window(steps, 1.0 - steps / 20)  # levels: steps 1-5 (mean at 3) to 16-20 (mean at 18)
    assert 6 <= start <= 8 and 14 <= end <= 16
    assert window(steps[:16], jump[:16]) is None  # two steps only


def _curves(n_steps=20):
    t0 = pd.Timestamp("2026-06-01T00:00Z")
    return {
        "step": list(range(1, n_steps + 1)),
        "step_time_utc": [(t0 + pd.Timedelta(hours=s)).isoformat() for s in range(1, n_steps + 1)],
    }


def test_rollouts_are_placed_on_the_step_that_ended_after_them():
    dates = pd.Series(
        pd.to_datetime(
            ["2026-06-01T00:30Z", "2026-06-01T01:00Z", "2026-06-01T05:10Z", "2026-06-02T09:00Z", None], utc=True
        )
    )
    placed = place_on_steps(dates, _curves())
    assert placed[:3].tolist() == [1.0, 1.0, 6.0] and np.isnan(placed[3]) and np.isnan(placed[4])


def test_an_imitation_share_that_rises_mid_run_gets_its_window():
    t0 = pd.Timestamp("2026-06-01T00:00Z")
    rows = []
    for step in range(1, 21):
        for j in range(10):
            gamed = step >= 12 and j < 8
            rows.append(
                {
                    "date": t0 + pd.Timedelta(hours=step - 0.5),
                    "task_family": "letter_counting",
                    "answer": "1" if gamed else str(2 + j),
                    "tool_errors": 1.0,
                    "think_tokens": 50.0 + j,
                }
            )
    out = rollout_windows(pd.DataFrame(rows), _curves(), {"letter_counting": "1"}, "org/job", n_perm=500)
    series = {s["series"]: s for s in out["series"]}
    moved = series["imitation:letter_counting"]
    assert moved["moved"] and moved["direction"] == "increase" and 10 <= moved["window"][0] <= moved["window"][1] <= 13
    assert not series["tool_errors"]["moved"] and not series["think_tokens"]["moved"]
    assert out["imitation_not_available"] == {}
    no_steps = rollout_windows(pd.DataFrame(rows), {"step": [1]}, {}, "org/job")
    assert no_steps["applicable"] is False and "step times" in no_steps["reason"]


def test_an_audit_of_another_eval_pair_is_not_read_as_this_checkpoints():
    from rl_assets.analysis.lineage.families import family_lineage

    row = {"family": "f", "label": "gamed", "reward_gain": {"estimate": 0.2, "lo": 0.1, "hi": 0.3, "p": 0.01}}
    fresh = {
        "repo_id": "org/j-1-8B",
        "step": 1,
        "post_rl_eval": "org/evals-1",
        "values": {"learning_audit": {"rows": [row], "sources": {"post_rl": {"source": "org/evals-1"}}}},
    }
    stale = {
        "repo_id": "org/j-2-8B",
        "step": 2,
        "post_rl_eval": "org/evals-2",
        "values": {"learning_audit": {"rows": [row], "sources": {"post_rl": {"source": "org/evals-old"}}}},
    }
    old = {
        "repo_id": "org/j-3-8B",
        "step": 3,
        "post_rl_eval": "org/evals-3",
        "values": {"learning_audit": {"labels": {}}},
    }
    families, missing = family_lineage([fresh, stale, old])
    assert [c["step"] for c in families[0]["cells"]] == [1]
    assert [m["step"] for m in missing] == [2, 3]
    assert "computed on org/evals-old" in missing[0]["reason"] and "predates per-family rows" in missing[1]["reason"]
