"""One smoothed per-step curve with its start level and its "moved" threshold (rules.py, rule 0)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import rules
from rl_assets.analysis.stats.onset import noise_level, rolling_median, start_level

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import ArrayLike


@dataclass(frozen=True)
class Curve:
    steps: np.ndarray  # logged steps, ascending
    raw: np.ndarray
    smooth: np.ndarray
    start: float
    threshold: float  # a move of more than this counts as up (or down)

    @classmethod
    def of(cls, steps: ArrayLike, values: ArrayLike) -> Curve:
        import numpy as np

        at, raw = np.asarray(steps, float), np.asarray(values, float)
        ok = np.isfinite(at) & np.isfinite(raw)
        at, raw = at[ok], raw[ok]
        smooth = rolling_median(raw, rules.WINDOW)
        span = float(np.ptp(smooth)) if len(smooth) else 0.0
        threshold = max(rules.NOISE_K * noise_level(raw, smooth), rules.RANGE_FLOOR * span)
        return cls(at.astype(int), raw, smooth, start_level(raw, rules.START_POINTS), threshold)

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def delta(self) -> np.ndarray:
        return self.smooth - self.start

    def up(self) -> np.ndarray:
        return self.delta > self.threshold

    def at(self, i: int) -> dict[str, Any]:
        return {
            "step": int(self.steps[i]),
            "raw": float(self.raw[i]),
            "smoothed": float(self.smooth[i]),
            "change": float(self.delta[i]),
        }

    def last_at_or_before(self, step: float) -> int | None:
        import numpy as np

        i = int(np.searchsorted(self.steps, step, side="right")) - 1
        return i if i >= 0 else None


def logged(table: pd.DataFrame, column: str) -> bool:
    """The table has the column and at least one step logs it."""
    return column in table.columns and bool(table[column].notna().any())


def column_curve(table: pd.DataFrame, column: str) -> Curve | None:
    """The column's curve, or None when the table does not have the column."""
    return Curve.of(table["step"], table[column]) if column in table.columns else None


def enough_curve(table: pd.DataFrame, column: str, name: str) -> Curve | dict[str, Any]:
    """The column's curve, or signal `name`'s "not enough data" when the column is logged at fewer
    than rules.MIN_STEPS steps: the first lines of every single-curve signal."""
    curve = column_curve(table, column)
    short = rules.too_few(name, f"{column} logged", len(curve) if curve is not None else 0)
    if short is not None:
        return short
    assert curve is not None  # no column is 0 steps: too_few said so
    return curve


def joint(table: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Rows where both columns are logged (the two curves then share their steps)."""
    return table.loc[table[a].notna() & table[b].notna(), ["step", a, b]]
