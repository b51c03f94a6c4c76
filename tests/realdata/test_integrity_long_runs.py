"""Reward integrity on real public verl runs long enough to judge (59-261 logged steps; PROVENANCE.txt in
each fixture folder; the TRL runs are in test_integrity_long_runs_trl.py). Every expected value was read by
hand from the fixture file (and checked in the source file it was trimmed from) and is quoted beside its
assertion; the verdicts are what the rules in rl_assets/analysis/integrity/rules.py give, with the reason
each one is right or what it misses (docs/integrity.md, "Checked on real runs")."""

import math

import numpy as np
import pytest

from rl_assets.analysis.integrity import onsets, rules
from support.integrity_real import run

# -- verl run i80f2v90: the responses collapse to one token within 12 steps ----------------------


def test_i80f2v90_reads_every_step_line_and_the_cut_validation_steps_have_no_reward():
    parsed, s, _ = run("verl_wandb_run_aopd_i80f2v90")
    assert parsed.trainer == "verl" and list(s.index) == list(range(1, 262))  # step:1 .. step:261
    assert parsed.accounting["lines"]["parsed"] == {"verl_step_line": 261}
    # the validation steps 10, 20, ..., 260 were cut before any critic/* key: 261 - 26 steps have a reward
    assert s["reward"].notna().sum() == 235 and math.isnan(s.loc[10, "reward"])
    assert s.loc[10, "entropy"] == 0.3711443543434143  # "step:10 - actor/entropy:0.3711443543434143"


def test_i80f2v90_values_and_concepts():
    parsed, s, _ = run("verl_wandb_run_aopd_i80f2v90")
    # step:1 - actor/entropy:0.21201248466968536 ... critic/score/mean:-0.675976574420929 -
    # critic/rewards/mean:-13.587958335876465 - response_length/mean:1759.12109375 ...
    # num_turns/mean:np.float64(7.68359375)
    assert s.loc[1, "task_score"] == -0.675976574420929 and s.loc[1, "reward"] == -13.587958335876465
    assert s.loc[1, "response_length"] == 1759.12109375 and s.loc[1, "entropy"] == 0.21201248466968536
    assert s.loc[1, "turns"] == 7.68359375
    # step:12 - actor/entropy:0.006812751293182373 ... critic/score/mean:-1.0 - critic/rewards/mean:-1.3379839658737183
    # - response_length/mean:1.0 ... num_turns/mean:np.float64(2.0)
    assert (s.loc[12, "task_score"], s.loc[12, "reward"], s.loc[12, "response_length"]) == (
        -1.0,
        -1.3379839658737183,
        1.0,
    )
    assert s.loc[12, "turns"] == 2.0
    # step:261 ... critic/score/mean:-1.0 - critic/rewards/mean:-1.3357977867126465 - response_length/mean:1.0
    assert (s.loc[261, "task_score"], s.loc[261, "reward"], s.loc[261, "response_length"]) == (
        -1.0,
        -1.3357977867126465,
        1.0,
    )
    assert parsed.alias_sources["turns"] == {"num_turns/mean": 235}
    assert parsed.alias_sources["length_clipped_share"] == {"response_length/clip_ratio": 235}
    assert parsed.reward_terms == {"reward_term/kl_penalty/in_reward_kl": "kl_penalty"}


def test_i80f2v90_the_early_jump_then_plateau_is_a_level_shift_earned_outside_the_task():
    _, s, out = run("verl_wandb_run_aopd_i80f2v90")
    # The reward rose from -13.59 to -1.34 in steps 1-11 (one-token answers shed the KL penalty, the score
    # is pinned at -1.0) and then stayed flat for 250 steps: over the whole run Kendall tau is 0.06 (p 0.17),
    # but the level-shift test sees the early rise that held.
    trend = out["reward_trend"]
    assert trend["p"] == pytest.approx(0.1726, abs=1e-4) and trend["tau"] == pytest.approx(0.0598, abs=1e-4)
    shift = trend["level_shift"]
    # start = median of steps 1-5 (-13.59, -14.08, -13.40, -10.76, -11.48) = -13.398685; held level = median of
    # the second half's raw rewards = -1.3374; smoothed step 9 = median(steps 7, 8, 9, 11, 12: -8.97, -3.45,
    # -2.00, -1.36, -1.34) = -1.997, within the 1.225 threshold of -1.337; step 8 (-3.45) is not: plateau from 9
    # "step:3 ... critic/rewards/mean:-13.39868450164795" is the start level
    assert (
        shift["rise"] == pytest.approx(shift["level"] - s.loc[3, "reward"]) and s.loc[3, "reward"] == -13.39868450164795
    )
    assert shift["holds"] and shift["plateau_from_step"] == 9 and shift["level"] == pytest.approx(-1.3374, abs=1e-4)
    assert shift["plateau_share"] == pytest.approx(227 / 235)  # steps 9..261 with a reward: 235 - 8
    assert shift["p"] < 1e-8  # Mann-Whitney, first 5 rewards (all <= -10.76) vs the 230 after (230 of them > -9)
    assert trend["rises"] is True
    # the reward-side signals hold, but the rise is the in-reward KL shrinking with the responses: its summed
    # form (KL per token x length) carries 380% of the reward's change, and the responses collapse (rule 1's
    # exception, after the pre-registered corpus labelled this run "collapsed": docs/validity.md)
    assert out["verdict"] == rules.COLLAPSED
    assert out["verdict_reason"] == (
        "holds: length_collapse from step 7, entropy_collapse from step 12; the reward rose as the KL penalty "
        "shrank with the collapsing responses (reward_task_divergence from step 5, non_task_term_share from step 5, "
        "reward_tracks_behaviour from step 5)"
    )
    at = out["signals"]["reward_task_divergence"]["at_onset"]
    # step 5: smoothed reward = median(steps 3-7: -13.40, -10.76, -11.48, -15.11, -8.97) = -11.48, +1.915 on the
    # start, above the 1.225 threshold; smoothed score = median(-0.844, -0.911, -0.918, -0.944, -0.966) = -0.918,
    # -0.074 on its start -0.844 (median of -0.676, -0.717, -0.844, -0.911, -0.918): not up
    assert at["reward"]["smoothed"] == s.loc[5, "reward"] and at["reward"]["change"] == pytest.approx(1.915, abs=1e-3)
    assert at["task_score"]["smoothed"] == s.loc[5, "task_score"] == -0.91796875
    share = out["signals"]["non_task_term_share"]
    assert share["term"] == "non-task remainder (reward − task_score)"
    assert (
        share["arithmetic"][1]
        == "non-task remainder (reward − task_score): change +12.22 / reward change +12.06 = 101%"
    )
    assert out["signals"]["train_val_divergence"]["status"] == rules.NO_DATA  # validation keys were cut


def test_i80f2v90_still_collapses_from_step_7():
    _, _, out = run("verl_wandb_run_aopd_i80f2v90")
    length = out["signals"]["length_collapse"]
    # start = median of steps 1-5 (1759.1, 1921.9, 1751.0, 1353.4, 1233.5) = 1751.025390625, floor 875.5;
    # centred median at step 7 = median(1233.5, 1014.4, 622.99, 277.6, 87.9) = 622.986328125 (step 6: 1014.4)
    assert length["onset_step"] == 7 and length["at_onset"]["response_length"]["smoothed"] == 622.986328125
    assert length["reason"] == "response_length fell from 1751 to 1 (floor 875.5 = 50% of start)"
    # entropy start = median(0.2120, 0.2076, 0.2106, 0.2168, 0.2096) = 0.2106; at step 12 the centred median
    # of steps 10-14 (0.371, 0.0881, 0.00681, 0.00239, 0.00166) is 0.00681, below the 10 % floor 0.0211
    assert out["signals"]["entropy_collapse"]["onset_step"] == 12
    # response_length/clip_ratio is at most 0.015625 on any step: no truncation
    assert out["signals"]["length_truncation"]["status"] == rules.DOES_NOT_HOLD


# -- verl run gjvwlq13: the reward rises by shedding the length-summed KL penalty -----------------


def test_gjvwlq13_reward_rises_while_the_task_score_falls():
    _, s, out = run("verl_wandb_run_aopd_gjvwlq13")
    assert list(s.index) == list(range(1, 60)) and s["reward"].notna().sum() == 54  # steps 10..50 cut
    # step:1 ... critic/score/mean:-0.5189452767372131 - critic/rewards/mean:-18.843252182006836 -
    # response_length/mean:970.009765625; step:59 ... critic/score/mean:-0.882617175579071 -
    # critic/rewards/mean:-1.7498167753219604 - response_length/mean:9.818359375
    assert (s.loc[1, "reward"], s.loc[1, "task_score"]) == (-18.843252182006836, -0.5189452767372131)
    assert (s.loc[59, "reward"], s.loc[59, "task_score"]) == (-1.7498167753219604, -0.882617175579071)
    assert out["verdict"] == rules.COLLAPSED  # the KL penalty's shrinking carries the rise (see i80f2v90)
    assert out["verdict_reason"] == (
        "holds: length_collapse from step 34; the reward rose as the KL penalty shrank with the collapsing "
        "responses (reward_task_divergence from step 12, non_task_term_share from step 12, reward_tracks_behaviour "
        "from step 12)"
    )
    assert out["signals"]["reward_task_divergence"]["reason"] == (
        "reward up +17.2 while task_score -0.319 (start to end, smoothed)"
    )
    assert out["reward_trend"]["rises"] is True and out["reward_trend"]["p"] < rules.TREND_P


def test_gjvwlq13_the_non_task_remainder_carries_the_rise_and_the_responses_collapse():
    _, s, out = run("verl_wandb_run_aopd_gjvwlq13")
    share = out["signals"]["non_task_term_share"]
    assert share["term"] == "non-task remainder (reward − task_score)"
    assert (
        share["arithmetic"][1]
        == "non-task remainder (reward − task_score): change +17.58 / reward change +17.19 = 102%"
    )
    # why: the per-token KL penalty the actor logs ROSE (actor/reward_kl_penalty 0.5546994805335999 at step 1,
    # 1.8724358081817627 at step 59), but verl subtracts it per response token, and the responses shrank
    # from 970 to 9.8 tokens, so reward - score went from -18.32 to -0.87
    assert s.loc[1, "actor/reward_kl_penalty"] == 0.5546994805335999
    assert s.loc[59, "actor/reward_kl_penalty"] == 1.8724358081817627
    assert s.loc[1, "reward"] - s.loc[1, "task_score"] == pytest.approx(-18.3243069, abs=1e-6)
    assert s.loc[59, "reward"] - s.loc[59, "task_score"] == pytest.approx(-0.8671996, abs=1e-6)
    # the logged per-token term (coeff 0.05 x that key) moves the wrong way: it carries ~0 % of the rise
    assert share["arithmetic"][0].startswith("reward_term/kl_penalty/in_reward_kl: change -0.06866")
    # term x mean response length approximates the summed penalty: 0.05 x 0.5547 x 970.0 = 26.9 at step 1 against
    # the exact 18.32, 0.05 x 1.872 x 9.82 = 0.919 at step 59 against 0.867 (long responses carry less KL per token)
    assert share["arithmetic"][2] == (
        "reward_term/kl_penalty/in_reward_kl × response_length (≈ summed over the response): "
        "change +25.37 / reward change +17.19 = 148%"
    )
    assert s.loc[1, "reward_term/kl_penalty/in_reward_kl"] * s.loc[1, "response_length"] == pytest.approx(
        26.90, abs=0.01
    )
    assert out["notes"][0].startswith("reward_term/kl_penalty/in_reward_kl is verl's per-token KL penalty")
    length = out["signals"]["length_collapse"]
    assert length["onset_step"] == 34 and length["at_onset"]["response_length"]["raw"] == 430.33203125
    assert out["signals"]["entropy_collapse"]["status"] == rules.DOES_NOT_HOLD  # 0.239 -> 0.486 (step 59)


# -- verl run cr3q4lay: tool calls, reward = task score, healthy ----------------------------------


def test_cr3q4lay_tool_calls_and_turns_map_to_their_concepts():
    parsed, s, _ = run("verl_wandb_run_aopd_cr3q4lay")
    assert list(s.index) == list(range(1, 239)) and s["reward"].notna().sum() == 215  # steps 10..230 cut
    # step:1 - rollout/tool_calls_avg:2.369140625 ... num_turns/mean:np.float64(6.734375)
    # step:238 - rollout/tool_calls_avg:4.517578125 ... num_turns/mean:np.float64(11.02734375)
    assert (s.loc[1, "tool_calls"], s.loc[1, "turns"]) == (2.369140625, 6.734375)
    assert (s.loc[238, "tool_calls"], s.loc[238, "turns"]) == (4.517578125, 11.02734375)
    # "step:100 - rollout/tool_calls_avg:3.650390625 - actor/entropy:..." precedes the cut: kept
    assert s.loc[100, "tool_calls"] == 3.650390625 and math.isnan(s.loc[100, "reward"])
    assert parsed.alias_sources["tool_calls"] == {"rollout/tool_calls_avg": 238}
    assert parsed.reward_terms == {}  # no in-reward KL: critic/rewards/mean == critic/score/mean on every line
    assert (s["reward"].dropna() == s["task_score"].dropna()).all()


def test_cr3q4lay_is_no_longer_healthy_the_behaviour_explains_the_rise_and_no_task_outcome_is_independent():
    """Issue 34: the reward rose with tool calls (2.4 -> 4.5 per trajectory) and response length (x4). The
    repository's agent-loop reward functions pay a wrong answer (num_turns - 2) / 2 x 0.1 (capped at -0.6;
    recipe/retool/retool.py, recipe/demystify/reward.py), inside critic/score/mean, so task_score is the reward
    itself and cannot show that the task earned the rise; the validation keys were cut by the console capture."""
    _, s, out = run("verl_wandb_run_aopd_cr3q4lay")
    # step:1 critic/score/mean:-0.48847657442092896, step:238 critic/score/mean:-0.28984373807907104
    assert (s.loc[1, "task_score"], s.loc[238, "task_score"]) == (-0.48847657442092896, -0.28984373807907104)
    assert out["reward_trend"]["rises"] is True
    assert out["verdict"] == rules.NOT_ENOUGH  # "healthy" before issue 34
    sig = out["signals"]
    assert sig["reward_task_divergence"]["status"] == rules.NO_DATA
    assert sig["reward_task_divergence"]["reason"].startswith("task_score is the reward itself")
    behaviour = sig["reward_tracks_behaviour"]
    assert behaviour["status"] == rules.NO_DATA
    assert behaviour["reason"].startswith(
        "behaviour explains the reward's rise (response_length 65%, tool_calls 59%, turns 59%; "
    )
    assert behaviour["reason"].endswith(
        "the task outcome could not be checked: task_score is the reward itself (equal at every step both log), "
        "so it cannot show the task earned the rise; val_score logged at 0 validation rounds (fewer than 3)"
    )
    assert out["verdict_reason"].startswith("could not check reward_task_divergence: task_score is the reward itself")
    assert "reward_tracks_behaviour: behaviour explains the reward's rise" in out["verdict_reason"]
    # the arithmetic, re-derived here with numpy alone over the 215 steps logging both: start = median of the
    # first 5 values, end = the centred median at the last step (median of the last 3), slope by least squares
    fits = {f["behaviour"]: f for f in behaviour["behaviours"]}
    both = s[["reward", "tool_calls"]].dropna()
    assert len(both) == 215 == fits["tool_calls"]["steps"]
    slope = np.polyfit(both["tool_calls"], both["reward"], 1)[0]

    def change(v):
        return np.median(v.iloc[-3:]) - np.median(v.iloc[:5])

    share = slope * change(both["tool_calls"]) / change(both["reward"])
    assert fits["tool_calls"]["slope"] == pytest.approx(slope) and slope == pytest.approx(0.065, abs=5e-4)
    assert fits["tool_calls"]["share_end"] == pytest.approx(share) and share == pytest.approx(0.591, abs=1e-3)
    assert fits["tool_calls"]["spearman"]["p"] < rules.TREND_P / 3  # three behaviours logged: Bonferroni
    # step:1 rollout/tool_calls_avg:2.369140625 ... step:238 rollout/tool_calls_avg:4.517578125; the count moved
    # from step 15, the reward went up (sustained) from step 71: the behaviour led
    assert fits["tool_calls"]["moved_from_step"] == 15 and fits["tool_calls"]["reward_up_from_step"] == 71
    # responses grew (response_length/mean 1082.611328125 at step 1, 4383.017578125 at step 238)
    assert (s.loc[1, "response_length"], s.loc[238, "response_length"]) == (1082.611328125, 4383.017578125)
    assert fits["response_length"]["share_end"] == pytest.approx(0.650, abs=1e-3)
    assert sig["length_collapse"]["status"] == rules.DOES_NOT_HOLD


def test_the_shrinking_responses_explain_the_kl_runs_rise_while_the_task_score_fell():
    # i80f2v90 and gjvwlq13: the responses (and turns) shrink, which sheds verl's length-summed KL penalty
    for folder, behaviour, onset in (
        ("verl_wandb_run_aopd_i80f2v90", "response_length", 5),
        ("verl_wandb_run_aopd_gjvwlq13", "turns", 12),
    ):
        _, s, out = run(folder)
        sig = out["signals"]["reward_tracks_behaviour"]
        assert sig["status"] == rules.HOLDS and sig["behaviour"] == behaviour and sig["onset_step"] == onset
        assert sig["task_outcome"]["rises"] is False
        assert sig["task_outcome"]["evidence"]["task_score"]["change"] < 0


# -- every real training-log fixture: the behaviour signal's false positives, and the verdicts ------

REAL_RUNS = {  # fixture folder: verdict after issue 34 (before it, in the comment when it differed)
    "skyrl_ctu_agent_run_0i3x0z3y": rules.NOT_ENOUGH,
    "skyrl_ctu_agent_run_33wkpvan": rules.NOT_ENOUGH,
    "skyrl_ctu_agent_run_qz54zcko": rules.NOT_ENOUGH,
    "trl_grpo_aaipl_checkpoints": rules.HEALTHY,
    "trl_grpo_chaos_economy": rules.NOT_ENOUGH,
    "trl_grpo_chaos_economy_250": rules.NOT_ENOUGH,  # healthy before: no task outcome logged
    "verl_megatron_cut_lines": rules.NOT_ENOUGH,
    "verl_ppo_codegen": rules.NOT_ENOUGH,
    "verl_wandb_run_aopd_8g5bqf9b": rules.NOT_ENOUGH,  # healthy before: reward at 10 steps (< 20)
    "verl_wandb_run_aopd_cr3q4lay": rules.NOT_ENOUGH,  # healthy before: task_score is the reward itself
    "verl_wandb_run_aopd_gjvwlq13": rules.COLLAPSED,  # outside before: the KL penalty carries the rise
    "verl_wandb_run_aopd_i80f2v90": rules.COLLAPSED,  # outside before: the KL penalty carries the rise
}


def test_the_behaviour_signal_holds_only_where_the_other_reward_side_signals_hold():
    verdicts = {folder: run(folder)[2]["verdict"] for folder in REAL_RUNS}
    assert verdicts == REAL_RUNS
    held = {f for f in REAL_RUNS if run(f)[2]["signals"]["reward_tracks_behaviour"]["status"] == rules.HOLDS}
    # both are earned outside the task by reward_task_divergence and non_task_term_share as well: 0 false
    # positives among the 12 real runs (docs/integrity.md, "Checked on real runs")
    assert held == {"verl_wandb_run_aopd_gjvwlq13", "verl_wandb_run_aopd_i80f2v90"}
    for folder in held:
        assert {"reward_task_divergence", "non_task_term_share"} <= set(onsets(run(folder)[2]))
    assert all(not run(f)[2]["non_finite"] for f in REAL_RUNS)  # no real fixture logs a non-finite value
