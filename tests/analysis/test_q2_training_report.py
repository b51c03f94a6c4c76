"""EMA, best checkpoint, instability flags, timing tree and the rendered report."""

import math

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.q2 import training_metrics as tm
from rl_assets.analysis.q2.log_timing import timing_breakdown


def test_ema_matches_hand_values_and_carries_over_gaps():
    assert tm.ema([0, 1, 1]) == pytest.approx([0, 1 / 3, 5 / 9])
    assert tm.ema([math.nan, 2, math.nan, 2])[1:] == [2, 2, 2]


def test_best_checkpoint_never_first_save_and_infers_save_every():
    steps = pd.DataFrame({"step": range(1, 61), "reward": [1.0 if s <= 10 else 0.5 for s in range(1, 61)]})
    steps.loc[steps["step"].isin([15, 30, 45]), "timing/save_checkpoints"] = 3.0
    best = tm.best_checkpoint(steps)
    assert best["save_every"] == 15 and "most common gap" in best["save_every_source"]
    assert best["best_step"] == 30  # 15 would have the higher EMA but is the first save
    assert tm.best_checkpoint(steps.drop(columns="timing/save_checkpoints"))["save_every"] == 20
    no_timer = steps.head(30).drop(columns="timing/save_checkpoints")
    assert tm.best_checkpoint(no_timer, save_every=20)["status"].startswith("no eligible")


def test_off_interval_final_save_does_not_make_every_step_eligible():
    # saves at 20, 40 and a final save at 47: a GCD would give save_every = 1 and make every step >= 2 eligible
    rewards = {s: 0.2 for s in range(1, 51)}
    rewards.update({5: 1.0, 6: 1.0, 7: 1.0, 33: 0.9, 34: 0.9, 35: 0.9})  # high EMA at unsaved steps
    steps = pd.DataFrame({"step": list(rewards), "reward": list(rewards.values())})
    steps.loc[steps["step"].isin([20, 40, 47]), "timing/save_checkpoints"] = 3.0
    assert tm.interval_from_saves([20, 40, 47]) == 20
    assert tm.interval_from_saves([120, 140, 160]) == 20  # a resumed run: the gap from step 0 is one odd gap
    assert tm.interval_from_saves([10, 15, 20, 25]) == 5  # gaps from 0: 10, 5, 5, 5
    assert tm.interval_from_saves([10, 20, 25, 30]) == 5  # gaps 10, 10, 5, 5: a tie -> the smaller
    assert tm.interval_from_saves([30]) == 30
    best = tm.best_checkpoint(steps)
    assert best["save_every"] == 20 and best["save_steps"] == [20, 40, 47]
    eligible = sorted(int(r["step"]) for r in best["table"] if r["eligible"])
    assert eligible == [40, 47]  # steps that saved, never the first save (20)
    assert best["best_step"] == 40  # EMA after the step-33..35 bump is higher at 40 than at 47
    # with a given interval, the recorded saves still decide eligibility
    assert sorted(int(r["step"]) for r in tm.best_checkpoint(steps, save_every=20)["table"] if r["eligible"]) == [
        40,
        47,
    ]


def test_instability_flags_need_two_signals():
    n = 20
    steps = pd.DataFrame(
        {"step": range(1, n + 1), "grad_norm": [0.3] * n, "entropy": [1.0] * n, "log_ratio_abs_max": [0.1] * n}
    )
    steps.loc[[14, 15], "grad_norm"] = 1.8  # sustained at steps 15-16
    steps.loc[15, "log_ratio_abs_max"] = 0.9  # second signal only at step 16
    steps.loc[4, "grad_norm"] = 2.0  # a single spike: not sustained
    steps.loc[18, "entropy"] = 1.5  # entropy off trend alone at step 19
    out = tm.instability_flags(steps)
    assert out["flagged_steps"] == [16]
    assert out["signal_counts"]["grad_norm_sustained"] == 2 and out["signal_counts"]["entropy_off_trend"] == 1


def test_timing_breakdown_uses_nearest_recorded_parent_and_reports_gaps():
    steps = pd.DataFrame(
        {
            "step": [1, 2],
            "timing/step": [100.0, 100.0],
            "timing/generate": [60.0, 50.0],
            "timing/policy_train": [30.0, np.nan],
            "timing/custom_span": [1.0, 1.0],
        }
    )
    rows = {(r["timer"], r["parent"]): r for r in timing_breakdown(steps)}
    assert rows[("generate", "step")]["share_of_parent"] == pytest.approx(0.55)
    assert rows[("policy_train", "step")]["share_of_parent"] == pytest.approx(0.15)  # no run_training recorded
    assert rows[("unattributed", "step")]["total_s"] == pytest.approx(60.0)
    assert rows[("custom_span", None)]["share_of_parent"] is None
    over = timing_breakdown(
        pd.DataFrame({"step": [1], "timing/step": [10.0], "timing/generate": [8.0], "timing/sync_weights": [4.0]})
    )
    assert any(r["timer"] == "overlap" and r["total_s"] == pytest.approx(2.0) for r in over)


def test_trends_and_category_summary():
    steps = pd.DataFrame(
        {
            "step": range(1, 21),
            "reward": np.linspace(0.2, 0.6, 20),
            "entropy": np.linspace(1.3, 0.8, 20),
            "reward/avg_raw_reward": np.linspace(0.2, 0.6, 20),
            "policy/policy_entropy": np.linspace(1.3, 0.8, 20),
        }
    )
    tr = tm.trend_summary(steps)
    assert tr["reward"]["change"] > 0.3 and tr["reward"]["spearman_with_step"] == pytest.approx(1.0)
    assert tr["entropy"]["kendall_with_step"] == pytest.approx(-1.0)
    cats = {c["key"]: c for c in tm.category_summary(steps)}
    assert set(cats) == {"reward/avg_raw_reward", "policy/policy_entropy"}  # canonical copies not repeated
    assert cats["reward/avg_raw_reward"]["category"] == "reward" and cats["reward/avg_raw_reward"]["count"] == 20


def test_the_unreadable_status_is_the_one_the_cross_check_gives():
    """analysis/ does not import ingest/, so the check's copy of the status is held equal here."""
    from rl_assets.analysis.q2.result import UNREADABLE
    from rl_assets.ingest.training_logs.crosscheck import UNREADABLE as GIVEN

    assert UNREADABLE == GIVEN
