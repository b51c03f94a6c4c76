"""The warning `length_truncation`: most responses stop at the generation length limit (rules.SIGNAL_RULES).

Read from `length_clipped_share` (verl response_length/clip_ratio, TRL completions/clipped_ratio). It
is named beside the verdict but never changes it: a share pinned at the cap says the outputs the
reward scored were cut off, not whether they were rambling or reasoning that outgrew a small limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import rules
from rl_assets.analysis.integrity.curve import Curve, enough_curve
from rl_assets.analysis.stats.onset import first_sustained

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

COLUMN = "length_clipped_share"


def length_truncation(table: pd.DataFrame) -> dict[str, Any]:
    name = "length_truncation"
    curve = enough_curve(table, COLUMN, name)
    if not isinstance(curve, Curve):
        return curve  # not enough data
    n = len(curve)
    i = first_sustained(curve.smooth >= rules.CLIP_SHARE, rules.SUSTAIN)
    held = curve.smooth >= rules.CLIP_SHARE

    def at(i: int) -> dict[str, Any]:
        return {"step": int(curve.steps[i]), COLUMN: curve.at(i)}

    if i is None:
        return rules.signal(
            name,
            rules.DOES_NOT_HOLD,
            f"{COLUMN} stays below {rules.CLIP_SHARE:.0%} for {rules.SUSTAIN} steps in a row "
            f"(start {curve.start:.3g}, end {curve.smooth[-1]:.3g}, smoothed)",
            at_end=at(-1),
        )
    since = (
        "already at the first logged step (the limit bound from the start of training)"
        if i == 0
        else f"from step {int(curve.steps[i])} (start {curve.start:.3g}: the responses grew into the limit)"
    )
    last = int(curve.steps[i:][held[i:]][-1])
    return rules.signal(
        name,
        rules.HOLDS,
        f"≥ {rules.CLIP_SHARE:.0%} of responses stopped at the length limit (smoothed) at {int(held[i:].sum())} "
        f"of the {n - i} logged steps from the onset, {since}; last at step {last}, end {curve.smooth[-1]:.3g}",
        onset_step=int(curve.steps[i]),
        at_onset=at(i),
        at_end=at(-1),
    )
