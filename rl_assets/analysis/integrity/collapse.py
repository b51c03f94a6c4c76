"""The collapse signals: response length, entropy or tool calls falling to a floor, and validation
generations that became empty or one constant answer (rules.SIGNAL_RULES)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import rules
from rl_assets.analysis.integrity.curve import Curve, enough_curve
from rl_assets.analysis.stats.onset import first_sustained

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd


def floor_collapse(
    table: pd.DataFrame, column: str, floor: float, name: str, at_most: float | None = None
) -> dict[str, Any]:
    """`column`'s smoothed curve at most `floor` × its start level (and at most `at_most`, when given)
    for rules.SUSTAIN steps in a row."""
    curve = enough_curve(table, column, name)
    if not isinstance(curve, Curve):
        return curve  # not enough data
    if not curve.start > 0:
        return rules.no_data(name, f"{column} starts at {curve.start:.3g}; a share of it is not a floor")
    limit = floor * curve.start if at_most is None else min(floor * curve.start, at_most)
    i = first_sustained(curve.smooth <= limit, rules.SUSTAIN)

    def at(i: int) -> dict[str, Any]:  # the column's numbers under its own name, so the report says which curve
        return {
            "step": int(curve.steps[i]),
            column: curve.at(i),
            "share_of_start": float(curve.smooth[i] / curve.start),
        }

    end = at(-1)
    if i is None:
        return rules.signal(
            name,
            rules.DOES_NOT_HOLD,
            f"{column} stays above {_floor_text(floor, at_most, curve.start)} (end {curve.smooth[-1]:.4g})",
            at_end=end,
            start=curve.start,
        )
    return rules.signal(
        name,
        rules.HOLDS,
        f"{column} fell from {curve.start:.4g} to {curve.smooth[-1]:.4g} (floor {limit:.4g} = "
        + (f"{floor:.0%} of start)" if at_most is None else f"the lower of {at_most:g} and {floor:.0%} of start)"),
        onset_step=int(curve.steps[i]),
        at_onset=at(i),
        at_end=end,
        start=curve.start,
    )


def _floor_text(floor: float, at_most: float | None, start: float) -> str:
    share = f"{floor:.0%} of its start {start:.4g}"
    return share if at_most is None else f"the lower of {at_most:g} and {share}"


def generation_rounds(frame: pd.DataFrame) -> tuple[list[dict[str, Any]], int]:
    """Per validation round: samples, empty share, the most common output's share; and rounds skipped."""
    rounds: list[dict[str, Any]] = []
    skipped = 0
    for step, group in frame.groupby("step", sort=True):
        outputs = ["" if o is None or (isinstance(o, float) and o != o) else str(o).strip() for o in group["output"]]
        if len(outputs) < rules.GEN_MIN_SAMPLES:
            skipped += 1
            continue
        filled = [o for o in outputs if o]
        top, top_n = Counter(filled).most_common(1)[0] if filled else ("", 0)
        rounds.append(
            {
                "step": int(step),  # type: ignore[arg-type]  # groupby("step") keys are the step ints
                "samples": len(outputs),
                "empty_share": 1 - len(filled) / len(outputs),
                "constant_share": top_n / len(outputs),
                "most_common_output": top[:80],
            }
        )
    return rounds, skipped


def generations(frame: pd.DataFrame | None, missing: str) -> dict[str, Any]:
    name = "validation_generations"
    if frame is None:
        return rules.no_data(name, missing)
    if frame.empty:
        return rules.no_data(name, "the validation-generation tables hold no rows")
    rounds, skipped = generation_rounds(frame)
    if len(rounds) < rules.GEN_SUSTAIN:
        return rules.no_data(
            name,
            f"{len(rounds)} validation rounds with ≥ {rules.GEN_MIN_SAMPLES} samples "
            f"(fewer than {rules.GEN_SUSTAIN}; {skipped} smaller rounds skipped)",
        )
    mask = [r["empty_share"] >= rules.GEN_SHARE or r["constant_share"] >= rules.GEN_SHARE for r in rounds]
    k = first_sustained(mask, rules.GEN_SUSTAIN)
    extra: dict[str, Any] = {"rounds": len(rounds), "rounds_skipped": skipped}
    if k is None:
        return rules.signal(
            name, rules.DOES_NOT_HOLD, f"outputs stay varied in {len(rounds)} rounds", at_end=rounds[-1], **extra
        )
    end = rounds[-1]
    return rules.signal(
        name,
        rules.HOLDS,
        f"by step {end['step']}: {end['empty_share']:.0%} empty, {end['constant_share']:.0%} one identical output",
        onset_step=rounds[k]["step"],
        at_onset=rounds[k],
        at_end=end,
        **extra,
    )
