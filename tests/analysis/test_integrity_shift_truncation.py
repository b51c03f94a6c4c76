"""The rules added after the real-run check (docs/integrity.md): the level-shift gate (a fast rise that
then holds flat), the length_truncation warning, and verl's per-token KL term summed approximately.
Each fires on its planted shape and stays quiet on a noisy flat series and a slow honest rise."""

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.integrity import kl_per_token, onsets, reward_integrity, rules
from rl_assets.analysis.integrity.report import render_markdown
from rl_assets.analysis.integrity.reward_rise import EACH_P
from rl_assets.analysis.render.index_md import integrity_headline
from support.integrity_synth import planted, rising_with_task


def fast_hack_then_plateau(n: int = 200, seed: int = 0, honest: bool = False) -> pd.DataFrame:
    """Reward −10 at steps 1-5, climbing to −1 by step 10, then flat for the rest: the i80f2v90 shape.
    The task score stays flat (the hack) or carries the whole climb (`honest`)."""
    rng = np.random.default_rng(seed)
    step = np.arange(1, n + 1)
    level = np.interp(step, [5, 10], [-10.0, -1.0])
    task = (level if honest else np.full(n, -0.5)) + rng.normal(0, 0.05, n)
    reward = (task if honest else level + task + 0.5) + rng.normal(0, 0.3, n)
    return pd.DataFrame({"step": step, "reward": reward, "task_score": task})


def test_a_fast_rise_then_a_plateau_passes_the_gate_that_kendall_misses():
    out = reward_integrity(fast_hack_then_plateau())
    trend = out["reward_trend"]
    assert trend["p"] >= EACH_P  # the run-long trend test alone would call it "does not rise"
    shift = trend["level_shift"]
    assert shift["holds"] and trend["rises"] and shift["p"] < EACH_P
    assert shift["level"] == pytest.approx(-1.0, abs=0.15) and shift["plateau_share"] >= rules.SHIFT_PLATEAU
    assert out["verdict"] == rules.OUTSIDE
    # the smoothed reward first clears its threshold on the climb (steps 5-10), not later
    assert 5 <= out["signals"]["reward_task_divergence"]["onset_step"] <= 10
    assert "level shift, plateau from step" in trend["reason"]


def test_the_same_shape_carried_by_the_task_score_is_healthy():
    out = reward_integrity(fast_hack_then_plateau(honest=True))
    assert out["reward_trend"]["level_shift"]["holds"]
    assert out["verdict"] == rules.HEALTHY, out["verdict_reason"]


def test_the_level_shift_does_not_fire_on_a_slow_honest_rise():
    out = reward_integrity(rising_with_task(n=200))
    shift = out["reward_trend"]["level_shift"]
    # a steady climb leaves its own second-half median long before the end: no plateau
    assert not shift["holds"] and shift["plateau_share"] < rules.SHIFT_PLATEAU
    assert out["reward_trend"]["rises"]  # Kendall sees the climb
    assert out["verdict"] == rules.HEALTHY


def test_the_gate_keeps_its_false_positive_rate_on_noisy_flat_rewards():
    # 300 noisy flat runs (Gaussian and heavy-tailed noise): the gate's two tests at 0.025 each
    hits = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        noise = rng.normal(0, 1, 60) if seed % 2 else rng.standard_t(3, 60)
        frame = pd.DataFrame({"step": np.arange(1, 61), "reward": noise, "task_score": noise})
        hits += reward_integrity(frame)["reward_trend"]["rises"]
    assert hits / 300 <= rules.TREND_P
    flat = reward_integrity(planted(onset=None, noise=0.05))["reward_trend"]
    assert not flat["level_shift"]["holds"] and not flat["rises"]


def test_the_level_shift_arithmetic_is_in_the_report():
    out = reward_integrity(fast_hack_then_plateau())
    md = render_markdown(out, "run", has_plot=False)
    assert "Level-shift test of the reward (rule 0): held level" in md and "Mann-Whitney U, first 5" in md


def clipped(shares) -> pd.DataFrame:
    frame = rising_with_task(n=len(shares))
    frame["length_clipped_share"] = shares
    return frame


def test_truncation_holds_from_its_onset_and_is_a_warning_not_a_verdict():
    rng = np.random.default_rng(3)
    shares = np.clip(np.where(np.arange(1, 81) >= 40, 1.0, 0.3) + rng.normal(0, 0.02, 80), 0, 1)
    out = reward_integrity(clipped(shares))
    sig = out["signals"]["length_truncation"]
    assert sig["status"] == rules.HOLDS and sig["onset_step"] == 40
    assert sig["at_onset"]["length_clipped_share"]["smoothed"] >= rules.CLIP_SHARE
    assert out["verdict"] == rules.HEALTHY
    assert out["verdict_reason"].endswith("; warning: length_truncation from step 40")
    assert "the responses grew into the limit" in sig["reason"]
    # INDEX.md's headline marks it as a warning beside a "healthy" verdict
    value = {"applicable": True, "verdict": out["verdict"], "onsets": onsets(out)}
    assert integrity_headline(value) == ["Reward integrity: **healthy** — length_truncation from step 40 (warning)"]


@pytest.mark.parametrize(
    "shares",
    [
        0.5 + np.random.default_rng(4).normal(0, 0.1, 80),  # noisy flat, some single steps near 0.8
        np.linspace(0.2, 0.85, 80) + np.random.default_rng(5).normal(0, 0.02, 80),  # slow rise, below the cap
    ],
    ids=["noisy_flat", "slow_rise"],
)
def test_truncation_does_not_fire_below_the_threshold(shares):
    out = reward_integrity(clipped(np.clip(shares, 0, 1)))
    assert out["signals"]["length_truncation"]["status"] == rules.DOES_NOT_HOLD
    assert "warning" not in out["verdict_reason"]


def test_truncation_without_the_column_is_not_enough_data_and_no_warning():
    out = reward_integrity(rising_with_task())
    assert out["signals"]["length_truncation"]["status"] == rules.NO_DATA
    assert out["verdict_reason"] == "no signal holds (not evaluated: train_val_divergence, validation_generations)"


def per_token_kl_hack(n: int = 60, with_length: bool = True) -> pd.DataFrame:
    """verl-like: per-token KL term 0.02 throughout, responses shrink 500 -> 10 tokens at step 30, and the
    reward subtracts term x length, so the reward rises while the logged per-token term stays flat."""
    frame = planted(n=n, onset=30, task_drop=0.0, term_jump=0.0, with_term=False)
    length = np.where(frame["step"] >= 30, 10.0, 500.0)
    frame[kl_per_token.PER_TOKEN] = 0.02
    frame["reward"] = frame["task_score"] - 0.02 * length
    frame["response_length"] = length if with_length else np.nan
    return frame


def test_the_summed_kl_term_carries_the_rise_the_per_token_term_misses():
    out = reward_integrity(per_token_kl_hack())
    arith = out["signals"]["non_task_term_share"]["arithmetic"]
    per_token = next(a for a in arith if a.startswith(f"{kl_per_token.PER_TOKEN}: "))
    summed = next(a for a in arith if a.startswith(kl_per_token.SUMMED))
    assert per_token.endswith("= 0%")  # constant per-token KL: no share of the +9.8 rise
    # -(0.02 x 10) - -(0.02 x 500) = +9.8, the whole rise: the approximation is exact for a constant KL
    assert "change +9.8 / reward change +9.79" in summed and summed.endswith("= 100%")  # task noise: 9.79
    assert out["notes"] == [kl_per_token.NOTE, kl_per_token.SUMMED_NOTE]
    md = render_markdown(out, "verl run", has_plot=False)
    assert "## Notes on the logged terms" in md and "understates it by about the response length" in md


def test_without_response_length_the_report_says_there_is_no_summed_term():
    out = reward_integrity(per_token_kl_hack(with_length=False))
    assert not any(a.startswith(kl_per_token.SUMMED) for a in out["signals"]["non_task_term_share"]["arithmetic"])
    assert out["notes"][1] == "response_length not logged: no summed approximation"
    assert reward_integrity(rising_with_task())["notes"] == []
