"""Did the reward rise? The gate of the reward-side signals (rules.py, rule 0).

Two ways a reward rises, each tested at half the family-wise level so the gate as a whole keeps its
stated false-positive rate (Bonferroni): a run-long monotone trend (Kendall τ), or a *level shift*,
a rise finished early and then held flat, which a run-long trend test misses because the flat part
dominates its pairs (a fast hack, then a plateau).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import rules
from rl_assets.analysis.integrity.curve import Curve
from rl_assets.analysis.integrity.finite import describe
from rl_assets.analysis.stats.onset import kendall_trend, shift_up_test

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

EACH_P = rules.TREND_P / 2  # Bonferroni over the two tests of the gate


def level_shift(reward: Curve) -> dict[str, Any]:
    """The level-shift test on the reward's curve: the numbers, and whether every part of it holds.

    The held level is the median of the second half's raw values; the plateau starts at the first
    step from which the smoothed reward stays within the curve's threshold of that level to the end.
    """
    import numpy as np

    n, first = len(reward), rules.START_POINTS
    level = float(np.median(reward.raw[n // 2 :]))
    inside = np.abs(reward.smooth - level) <= reward.threshold
    outside = np.flatnonzero(~inside)
    start_i = int(outside[-1]) + 1 if len(outside) else 0  # the plateau: from here to the end, all inside
    plateau_share = (n - start_i) / n
    p = shift_up_test(reward.raw[:first], reward.raw[first:])
    rise = level - reward.start
    holds = bool(rise > reward.threshold and plateau_share >= rules.SHIFT_PLATEAU and p < EACH_P)
    plateau_step = int(reward.steps[start_i]) if start_i < n else None
    return {
        "holds": holds,
        "p": p,
        "level": level,
        "rise": rise,
        "threshold": reward.threshold,
        "plateau_from_step": plateau_step,
        "plateau_share": plateau_share,
        "arithmetic": f"held level {level:.4g} (median of the second half) − start {reward.start:.4g} = {rise:+.4g} "
        f"vs threshold {reward.threshold:.4g}; within the threshold of that level from step {plateau_step} on "
        f"({plateau_share:.0%} of {n} logged steps, {rules.SHIFT_PLATEAU:.0%} needed); Mann-Whitney U, first "
        f"{first} logged values vs the other {n - first}: one-sided p {p:.3g} (< {EACH_P:g} needed)",
    }


def reward_trend(table: pd.DataFrame, non_finite: dict[str, int] | None = None) -> dict[str, Any]:
    """Kendall tau of reward against step over the run, and the level-shift test: the gate.
    `table` holds finite values or NaN only (finite.finite_table); `non_finite` counts the reward's
    entries dropped there, so "not enough data" can say they were logged and not numbers."""
    import numpy as np

    n = int(table["reward"].notna().sum()) if "reward" in table.columns else 0
    if n < rules.MIN_STEPS:
        dropped = f"; {describe(non_finite)} not counted" if non_finite else ""
        return {
            "evaluable": False,
            "rises": False,
            "reason": f"reward logged at {n} steps (fewer than {rules.MIN_STEPS}{dropped})",
        }
    tau, p = kendall_trend(table["step"], table["reward"])
    trending = bool(np.isfinite(tau) and tau > 0 and p < EACH_P)
    curve = Curve.of(table["step"], table["reward"])
    shift = level_shift(curve)
    rises = trending or shift["holds"]
    how = (
        "rises over the run"
        if trending
        else f"shifted up early and held (level shift, plateau from step {shift['plateau_from_step']})"
        if shift["holds"]
        else "does not rise"
    )
    return {
        "evaluable": True,
        "rises": rises,
        "tau": tau,
        "p": p,
        "level_shift": shift,
        "curve": curve,  # the smoothed reward, for the signals that read it (not stored: see reward_integrity)
        "reason": f"reward {how} (Kendall τ {tau:.3f}, p {p:.3g}; level-shift p {shift['p']:.3g})",
    }
