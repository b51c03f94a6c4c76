"""Reward integrity on real public TRL GRPO runs (50 logged steps each; PROVENANCE.txt in each fixture
folder). Expected values were read by hand from the fixture files and are quoted beside their assertions
(docs/integrity.md, "Checked on real runs"; the verl runs are in test_integrity_long_runs.py)."""

import pytest

from rl_assets.analysis.integrity import rules
from support.integrity_real import run

# -- TRL GRPO Chaos-Economy, 50 logged steps: the reward never rises ------------------------------


def test_trl_chaos_economy_250_terms_and_clipping():
    parsed, s, _ = run("trl_grpo_chaos_economy_250")
    assert parsed.trainer == "trl" and list(s.index) == list(range(5, 251, 5))
    assert sorted(parsed.reward_terms.items()) == [
        ("reward_term/format/format_reward_fn", "format"),
        ("reward_term/other/diversity_reward_fn", "other"),
        ("reward_term/other/news_alpha_reward_fn", "other"),
        ("reward_term/other/oversight_reward_fn", "other"),
        ("reward_term/other/pnl_reward_fn", "other"),
        ("reward_term/other/risk_reward_fn", "other"),
    ]
    # log_history[0]: "step": 5, "reward": 0.6202375590801239, "completions/mean_length": 424.3,
    # "completions/clipped_ratio": 0.6, "rewards/format_reward_fn/mean": 0.625
    assert (s.loc[5, "reward"], s.loc[5, "response_length"], s.loc[5, "length_clipped_share"]) == (
        0.6202375590801239,
        424.3,
        0.6,
    )
    assert s.loc[5, "reward_term/format/format_reward_fn"] == 0.625
    # from step 80 every completion stops at the 512-token cap ("completions/clipped_ratio": 1.0), except step 205 (0.9)
    assert (s.loc[80:250, "length_clipped_share"] == 1.0).sum() == 34 and s.loc[205, "length_clipped_share"] == 0.9
    assert parsed.alias_sources["length_clipped_share"] == {"completions/clipped_ratio": 50}


def test_trl_chaos_economy_250_is_not_healthy_because_no_task_outcome_was_logged():
    _, s, out = run("trl_grpo_chaos_economy_250")
    # step 250: "reward": 0.2743660032749176 -- below step 5's 0.620; tau -0.009, p 0.93
    assert s.loc[250, "reward"] == 0.2743660032749176
    assert out["reward_trend"]["rises"] is False
    # the reward did not rise, but no task outcome was logged to compare it with, so the evidence "healthy"
    # rests on was not evaluated (rules.RULES 3; this run read "healthy" before issue 34)
    assert out["verdict"] == rules.NOT_ENOUGH
    assert out["verdict_reason"] == (
        "could not check reward_task_divergence: task_score not logged; train_val_divergence: val_score logged "
        "at 0 validation rounds (fewer than 3); warning: length_truncation from step 35"
    )
    assert out["reward_trend"]["level_shift"]["holds"] is False  # the second half's median 0.312 < start 0.491
    # no reward function is named for the task and TRL logs no score of its own: no task_score
    assert out["signals"]["reward_task_divergence"]["reason"] == "task_score not logged"
    # the behaviour signal was evaluated (response_length at 50 steps) and does not hold: nothing was earned
    assert out["signals"]["reward_tracks_behaviour"]["status"] == rules.DOES_NOT_HOLD


def test_trl_chaos_economy_250_responses_are_truncated_at_the_cap_from_step_35():
    _, s, out = run("trl_grpo_chaos_economy_250")
    sig = out["signals"]["length_truncation"]
    # "completions/clipped_ratio" at steps 25..45: 0.65, 0.9, 0.85, 0.9, 0.9; the centred median at step 35 is
    # 0.9 (at step 30: median(0.65, 0.65, 0.9, 0.85, 0.9) = 0.85), and it stays >= 0.9 to step 250
    assert list(s.loc[25:45, "length_clipped_share"]) == [0.65, 0.9, 0.85, 0.9, 0.9]
    assert sig["status"] == rules.HOLDS and sig["onset_step"] == 35
    assert sig["at_onset"]["length_clipped_share"]["smoothed"] == 0.9
    assert sig["reason"] == (
        "≥ 90% of responses stopped at the length limit (smoothed) at 44 of the 44 logged steps from the onset, "
        "from step 35 (start 0.65: the responses grew into the limit); last at step 250, end 1"
    )
    # the mean completion length sits at the 512-token cap at the end ("completions/mean_length": 512.0)
    assert s.loc[250, "response_length"] == 512.0


# -- TRL GRPO IITD_Feb26_AAIPL, five checkpoints' trainer_state.json ------------------------------


def test_aaipl_checkpoints_are_read_once_each_and_the_terms_add_up_to_the_reward():
    parsed, s, _ = run("trl_grpo_aaipl_checkpoints")
    # checkpoint-N holds N/10 entries (steps 10..N); the newest (500) gives all 50, the rest repeat it
    assert parsed.trainer == "trl" and list(s.index) == list(range(10, 501, 10))
    led = parsed.accounting["lines"]
    assert led["read"] == 150 and led["parsed"] == {"log_history_train": 50}
    assert led["ignored"] == {"in_newer_checkpoint": 100}
    assert parsed.reward_terms == {
        "reward_term/format/valid_json_reward": "format",
        "reward_term/task/gameplay_scores": "task",
    }
    assert parsed.alias_sources["task_score"] == {"rewards/gameplay_scores/mean": 50}
    # step 10: "reward": -9.6625 = "rewards/gameplay_scores/mean": -8.7875 + "rewards/valid_json_reward/mean": -0.875
    # step 500: "reward": 0.425 = -1.575 + 2.0
    for step in (10, 500):
        terms = s.loc[step, "reward_term/task/gameplay_scores"] + s.loc[step, "reward_term/format/valid_json_reward"]
        assert s.loc[step, "reward"] == pytest.approx(terms)
    assert (s.loc[10, "reward"], s.loc[500, "reward"]) == (-9.6625, 0.425)


def test_aaipl_is_healthy_the_format_term_saturates_but_the_reward_does_not_rise():
    _, s, out = run("trl_grpo_aaipl_checkpoints")
    # valid_json_reward: -0.875 at step 10, 2.0 (its ceiling) at step 70 and 14 more steps; the game score
    # swings between -10.3375 (step 90) and 9.10625 (step 230), so the reward shows no trend (tau 0.105, p 0.28)
    assert s.loc[10, "reward_term/format/valid_json_reward"] == -0.875
    assert (s["reward_term/format/valid_json_reward"] == 2.0).sum() == 15
    assert (s["task_score"].min(), s["task_score"].max()) == (-10.3375, 9.10625)
    assert out["reward_trend"]["rises"] is False
    assert out["verdict"] == rules.HEALTHY
    assert out["verdict_reason"] == (
        # a GRPO run without tools logs no tool calls: tool_use_collapse is named as not evaluated
        "no signal holds (not evaluated: train_val_divergence, tool_use_collapse, validation_generations); "
        "warning: length_truncation from step 10"
    )
    # "completions/clipped_ratio" 0.9, 0.98125, 0.9875 at steps 10-30: >= 90 % of completions hit the limit from
    # the first logged step; the smoothed share stays >= 0.9 to step 280 (0.925) and ends at 0.8375
    trunc = out["signals"]["length_truncation"]
    assert list(s.loc[10:30, "length_clipped_share"]) == [0.9, 0.98125, 0.9875]
    assert trunc["onset_step"] == 10 and trunc["reason"].endswith("last at step 280, end 0.838")
    # the first five rewards are low (Mann-Whitney p 0.003) but the game score's swings make the threshold 11.7,
    # above the 5.69 rise of the second half's median: no level shift
    shift = out["reward_trend"]["level_shift"]
    assert shift["holds"] is False and shift["rise"] < shift["threshold"]
    # "entropy": 1.4185649514198304 (step 10) -> 0.9487776204943656 (step 500): above the 10 % floor
    assert (s.loc[10, "entropy"], s.loc[500, "entropy"]) == (1.4185649514198304, 0.9487776204943656)
    assert out["signals"]["entropy_collapse"]["status"] == rules.DOES_NOT_HOLD
