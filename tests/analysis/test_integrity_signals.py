"""Reward integrity: every rule on planted tables (onset step exact), not-enough-data and healthy."""

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.integrity import onsets, reward_integrity, rules
from rl_assets.analysis.integrity.reward_side import REMAINDER
from support.integrity_synth import generations, planted, rising_with_task


def test_planted_hack_is_found_with_its_exact_onset():
    out = reward_integrity(planted(onset=25))
    sig = out["signals"]
    assert out["verdict"] == rules.OUTSIDE
    assert sig["reward_task_divergence"]["onset_step"] == 25
    assert sig["non_task_term_share"]["onset_step"] == 25
    assert sig["non_task_term_share"]["term"] == "reward_term/format/format_reward"
    # the arithmetic is shown: the format term's change over the reward's change, about 0.5 / 0.4
    (arith,) = sig["non_task_term_share"]["arithmetic"]
    assert arith.startswith("reward_term/format/format_reward: change +0.5") and "= 12" in arith
    at = sig["reward_task_divergence"]["at_onset"]
    assert at["step"] == 25 and at["reward"]["change"] > 0.3 and at["task_score"]["change"] < -0.05


@pytest.mark.parametrize("onset", [12, 31, 44])
def test_onset_moves_with_the_plant(onset):
    assert onsets(reward_integrity(planted(onset=onset)))["reward_task_divergence"] == onset


def test_without_explicit_terms_the_remainder_is_named():
    sig = reward_integrity(planted(onset=30, with_term=False))["signals"]["non_task_term_share"]
    assert sig["status"] == rules.HOLDS and sig["term"] == REMAINDER and sig["onset_step"] == 30


def test_healthy_run():
    out = reward_integrity(rising_with_task())
    assert out["verdict"] == rules.HEALTHY, out["verdict_reason"]
    assert out["signals"]["reward_task_divergence"]["status"] == rules.DOES_NOT_HOLD
    assert out["signals"]["non_task_term_share"]["status"] == rules.DOES_NOT_HOLD
    assert "validation_generations" in out["verdict_reason"]  # not evaluated, and said so


def test_flat_reward_never_fires_the_reward_side():
    out = reward_integrity(planted(onset=None))
    assert out["verdict"] == rules.HEALTHY
    assert not out["reward_trend"]["rises"]


def test_too_few_steps_is_not_enough_data():
    out = reward_integrity(planted(n=8, onset=4))
    assert out["verdict"] == rules.NOT_ENOUGH
    assert all(s["status"] == rules.NO_DATA for s in out["signals"].values())
    assert "reward logged at 8 steps (fewer than 10)" in out["verdict_reason"]


def test_reward_only_run_is_not_enough_data():
    frame = planted(onset=25, with_task=False, with_term=False)[["step", "reward"]]
    out = reward_integrity(frame)
    assert out["verdict"] == rules.NOT_ENOUGH
    assert out["signals"]["reward_task_divergence"]["reason"] == "task_score not logged"


def test_length_collapse_onset():
    out = reward_integrity(planted(onset=20, task_drop=-0.3, term_jump=0.0, length_drop=0.8))
    sig = out["signals"]["length_collapse"]
    assert out["verdict"] == rules.COLLAPSED and sig["onset_step"] == 20
    assert sig["at_end"]["share_of_start"] == pytest.approx(0.2, abs=0.02)


def test_entropy_collapse_onset():
    out = reward_integrity(planted(onset=33, task_drop=-0.3, term_jump=0.0, entropy_drop=0.95))
    assert out["signals"]["entropy_collapse"]["onset_step"] == 33
    assert out["signals"]["length_collapse"]["status"] == rules.DOES_NOT_HOLD


def test_train_val_divergence_at_validation_rounds():
    # the task score rises with the reward (so only train/val can fire); validation stays flat
    frame = planted(onset=20, task_drop=-0.4, term_jump=0.0, val_every=10)
    sig = reward_integrity(frame)["signals"]["train_val_divergence"]
    assert sig["status"] == rules.HOLDS and sig["onset_step"] == 20
    assert sig["at_end"]["val_score"]["change"] < rules.VAL_RISE
    good = reward_integrity(planted(onset=20, task_drop=-0.4, term_jump=0.0, val_every=10, val_gain=0.2))
    assert good["signals"]["train_val_divergence"]["status"] == rules.DOES_NOT_HOLD
    assert good["verdict"] == rules.HEALTHY


def test_too_few_validation_rounds():
    sig = reward_integrity(planted(onset=20, val_every=25))["signals"]["train_val_divergence"]
    assert sig["status"] == rules.NO_DATA and "2 validation rounds" in sig["reason"]


@pytest.mark.parametrize("empty", [False, True])
def test_validation_generations_become_constant_or_empty(empty):
    frame = rising_with_task()
    out = reward_integrity(frame, generations([10, 20, 30, 40, 50], onset=30, empty=empty))
    sig = out["signals"]["validation_generations"]
    assert out["verdict"] == rules.COLLAPSED and sig["onset_step"] == 30
    assert sig["at_end"]["empty_share" if empty else "constant_share"] == 1.0


def test_varied_generations_and_small_rounds():
    sig = reward_integrity(rising_with_task(), generations([10, 20, 30], onset=None))["signals"]
    assert sig["validation_generations"]["status"] == rules.DOES_NOT_HOLD
    small = reward_integrity(rising_with_task(), generations([10, 20], onset=None, samples=2))
    assert small["signals"]["validation_generations"]["status"] == rules.NO_DATA
    assert "2 smaller rounds skipped" in small["signals"]["validation_generations"]["reason"]


def test_single_noisy_step_sets_no_onset():
    frame = rising_with_task()
    frame.loc[frame["step"] == 30, "reward_term/format/format_reward"] = 5.0  # one spike
    frame.loc[frame["step"] == 30, "reward"] += 4.9
    assert reward_integrity(frame)["verdict"] == rules.HEALTHY


def test_table_without_step_column_names_the_problem():
    with pytest.raises(ValueError, match="no 'step' column"):
        reward_integrity(pd.DataFrame({"reward": np.arange(20.0)}))


def test_kl_penalty_counts_with_a_minus_sign_and_keeps_the_remainder():
    frame = planted(onset=30, with_term=False)
    # verl's in-reward KL penalty shrinks from 0.3 to 0.0 at step 30: the reward rises by 0.3 from it
    frame["reward_term/kl_penalty/in_reward_kl"] = np.where(frame["step"] >= 30, 0.0, 0.3)
    frame["reward"] = frame["task_score"] - frame["reward_term/kl_penalty/in_reward_kl"]
    sig = reward_integrity(frame)["signals"]["non_task_term_share"]
    assert sig["status"] == rules.HOLDS and sig["onset_step"] == 30
    assert any(a.startswith("reward_term/kl_penalty/in_reward_kl: change +0.3") for a in sig["arithmetic"])
    assert any(a.startswith(REMAINDER) for a in sig["arithmetic"])


def test_an_all_missing_task_score_column_is_not_a_remainder():
    # readers add every canonical column; a SkyRL run's task_score is there but never logged
    frame = planted(onset=25, with_task=False, with_term=False)[["step", "reward"]].assign(task_score=np.nan)
    sig = reward_integrity(frame)["signals"]["non_task_term_share"]
    assert sig["status"] == rules.NO_DATA and sig["reason"].startswith("no non-task reward term logged")
