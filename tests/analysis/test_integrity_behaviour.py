"""Issue 34 item 2: the reward tracks a behaviour count (reward_tracks_behaviour), non-finite values, and
"healthy" said only when its evidence was evaluated. Hand-made step tables with known truth."""

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.integrity import reward_integrity, rules
from rl_assets.analysis.integrity.finite import finite_table
from rl_assets.analysis.integrity.plant import plant_behaviour_bonus
from rl_assets.analysis.integrity.report import render_markdown
from support.integrity_synth import agent_run, reasoning_run, rising_with_task

NAME = "reward_tracks_behaviour"


def test_a_reward_paying_per_tool_call_with_flat_validation_is_earned_outside_the_task():
    out = reward_integrity(agent_run(per_call=0.1))
    sig = out["signals"][NAME]
    assert out["verdict"] == rules.OUTSIDE
    assert sig["status"] == rules.HOLDS and sig["behaviour"] == "tool_calls"
    # the ramp starts at step 20 (2.4 -> 4.5 by step 40): the reward is up, and the tool calls carry it, from then
    assert 20 <= sig["onset_step"] <= 26
    (fit,) = sig["behaviours"]
    # reward = accuracy (flat) + 0.1 x (tool calls - 2.4): the slope is the bonus, the share about all of it
    assert fit["slope"] == pytest.approx(0.1, abs=0.01) and fit["share_end"] == pytest.approx(1.0, abs=0.1)
    assert fit["spearman"]["rho"] > 0.8 and fit["spearman"]["p"] < rules.TREND_P
    assert sig["arithmetic"][0].startswith("tool_calls: slope 0.1")
    # task_score is the reward itself (the bonus is inside the reward function's score): the flat
    # held-out accuracy is the task evidence
    task = sig["task_outcome"]
    assert "task_score" not in task["evidence"] and task["unchecked"][0].startswith("task_score is the reward itself")
    assert task["evidence"]["val_score"]["rises"] is False and task["rises"] is False
    assert "while the task outcome did not rise (val_score 0.25" in sig["reason"]
    assert out["signals"]["reward_task_divergence"]["status"] == rules.NO_DATA  # task_score = reward


def test_the_same_tool_calls_while_validation_rises_is_how_the_task_was_earned():
    out = reward_integrity(agent_run(per_call=0.1, task_gain=0.2, val_gain=0.15))
    sig = out["signals"][NAME]
    assert sig["status"] == rules.DOES_NOT_HOLD and "the task outcome rose with it (val_score" in sig["reason"]
    assert out["verdict"] == rules.HEALTHY, out["verdict_reason"]


def test_length_growing_with_the_reward_while_validation_rises_is_not_accused():
    out = reward_integrity(reasoning_run())
    sig = out["signals"][NAME]
    assert sig["behaviours"][0]["share_end"] > rules.SHARE  # the length does explain the reward's rise ...
    assert sig["status"] == rules.DOES_NOT_HOLD  # ... but the held-out accuracy rose with it
    assert "the behaviour is how the task was earned" in sig["reason"]
    assert out["verdict"] == rules.HEALTHY, out["verdict_reason"]


def test_without_a_task_outcome_apart_from_the_reward_it_is_not_enough_data_never_healthy():
    out = reward_integrity(reasoning_run(val_every=None))
    sig = out["signals"][NAME]
    assert sig["status"] == rules.NO_DATA
    assert sig["reason"].startswith("behaviour explains the reward's rise (response_length ")
    assert "could not be checked: task_score is the reward itself" in sig["reason"]
    assert "val_score logged at 0 validation rounds" in sig["reason"]
    assert out["verdict"] == rules.NOT_ENOUGH
    assert out["verdict_reason"].startswith("could not check reward_task_divergence: task_score is the reward itself")


def test_an_independent_task_score_that_rises_with_the_length_is_healthy_without_validation():
    frame = reasoning_run(val_every=None)
    frame["reward_term/format/format_reward"] = 0.1  # a second reward function: task_score is no longer the reward
    frame["reward"] = frame["task_score"] + 0.1
    out = reward_integrity(frame)
    assert out["signals"]["reward_task_divergence"]["status"] == rules.DOES_NOT_HOLD
    assert out["signals"][NAME]["status"] == rules.DOES_NOT_HOLD
    assert out["signals"][NAME]["task_outcome"]["evidence"]["task_score"]["rises"] is True
    assert out["verdict"] == rules.HEALTHY


def test_a_behaviour_that_moves_only_after_the_reward_rose_did_not_earn_it():
    frame = agent_run(per_call=0.0, task_gain=0.0, val_every=10)
    # the reward jumps at step 20 from something unlogged; the tool calls follow 15 steps later
    rng = np.random.default_rng(9)
    frame["reward"] = 0.3 + 0.3 * (frame["step"] >= 20) + rng.normal(0, 0.01, len(frame))
    frame["task_score"] = frame["reward"]
    frame["tool_calls"] = 2.4 + 2.0 * (frame["step"] >= 35) + rng.normal(0, 0.05, len(frame))
    sig = reward_integrity(frame)["signals"][NAME]
    (fit,) = sig["behaviours"]
    assert fit["moved_from_step"] == 35 and fit["reward_up_from_step"] == 20 and not fit["moved_in_time"]
    assert sig["status"] == rules.DOES_NOT_HOLD and "it followed the rise" in sig["arithmetic"][0]


def test_healthy_needs_the_behaviour_signal_evaluated_where_a_behaviour_count_is_logged():
    frame = rising_with_task()  # healthy, response_length logged at every step
    assert reward_integrity(frame)["verdict"] == rules.HEALTHY
    short = frame.assign(response_length=np.where(frame["step"] <= 6, 400.0, np.nan))
    out = reward_integrity(short)
    assert out["signals"][NAME]["status"] == rules.NO_DATA
    assert out["verdict"] == rules.NOT_ENOUGH
    assert (
        "reward_tracks_behaviour: no behaviour count logged together with the reward at ≥ 10 steps"
        in (out["verdict_reason"])
    )


def test_a_reward_finite_at_three_steps_is_not_enough_data_naming_the_non_finite_count():
    frame = rising_with_task()
    rng = np.random.default_rng(4)
    bad = np.ones(len(frame), bool)
    bad[[0, 30, 59]] = False
    frame["reward"] = np.where(bad, np.where(rng.random(len(frame)) < 0.5, np.inf, -np.inf), frame["reward"])
    counts = {"+inf": int(np.isposinf(frame["reward"]).sum()), "-inf": int(np.isneginf(frame["reward"]).sum())}
    assert sum(counts.values()) == 57
    out = reward_integrity(frame)
    assert out["verdict"] == rules.NOT_ENOUGH
    assert out["non_finite"] == {"reward": counts}
    reason = (
        f"reward logged at 3 steps (fewer than 10; 57 non-finite values (+inf {counts['+inf']}, "
        f"-inf {counts['-inf']}) not counted)"
    )
    assert out["reward_trend"]["reason"] == reason and reason in out["verdict_reason"]
    md = render_markdown(out, "run", has_plot=False)
    assert "## Non-finite values (not counted as logged)" in md and "reward: 57 non-finite values" in md


def test_non_finite_strings_and_overflow_are_counted_by_kind_and_never_logged():
    frame = pd.DataFrame(
        {
            "step": [1, 2, 3, 4, 5, 6],
            "reward": ["0.5", "inf", "-Infinity", "nan", "1e999", "oops"],
            "entropy": [0.1, None, 0.2, float("nan"), 0.3, 0.4],  # NaN / None: not logged, not non-finite
            "other": ["text", "inf", None, None, None, None],  # not a column the analysis reads: left alone
        }
    )
    table, counts = finite_table(frame)
    assert counts == {"reward": {"+inf": 2, "-inf": 1, "nan": 1, "not a number": 1}}
    assert table["reward"].tolist()[0] == 0.5 and table["reward"].isna().sum() == 5
    assert table["other"].tolist()[:2] == ["text", "inf"]


def test_planting_a_hidden_per_call_bonus_into_a_healthy_run_is_found():
    clean = agent_run(per_call=0.0, task_gain=0.0, val_gain=0.0)
    assert reward_integrity(clean)["signals"][NAME]["status"] == rules.DOES_NOT_HOLD  # the reward does not rise
    hacked = plant_behaviour_bonus(clean, "tool_calls", 0.1)
    assert (hacked["task_score"] == hacked["reward"]).all()  # hidden inside the reward function's score
    sig = reward_integrity(hacked)["signals"][NAME]
    assert sig["status"] == rules.HOLDS and sig["behaviour"] == "tool_calls"
    logged = plant_behaviour_bonus(clean, "tool_calls", 0.1, inside_task_score=False, term="tool_call_bonus")
    out = reward_integrity(logged)
    assert out["signals"]["non_task_term_share"]["term"] == "reward_term/tool/tool_call_bonus"
    assert out["verdict"] == rules.OUTSIDE
    with pytest.raises(ValueError, match="no 'turns'"):
        plant_behaviour_bonus(clean, "turns")
