"""A compact per-step metric store: one float array per key, one row per step.

Python dicts of floats cost ~100 bytes a cell; a log of thousands of steps x hundreds of keys
would then dominate memory. Arrays of doubles keep a cell at 8 bytes, so peak memory follows the
number of steps, not the number of log bytes.
"""

from __future__ import annotations

import math
from array import array
from typing import TYPE_CHECKING

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

NAN = math.nan


class StepStore:
    """Rows keyed by integer step; cells default to NaN; later writes to a cell overwrite it."""

    def __init__(self) -> None:
        self.row_of: dict[int, int] = {}
        self.columns: dict[str, array] = {}
        self.n_rows = 0  # rows allocated, dropped ones included
        # metric -> {"nan"|"inf"|"-inf": values read}: a non-finite value is stored as read and named
        # here (an overflowing number such as 1e999 reads as inf), never silently taken as data
        self.non_finite: dict[str, dict[str, int]] = {}

    def _row(self, step: int) -> int:
        row = self.row_of.get(step)
        if row is None:
            row = self.n_rows
            self.n_rows += 1
            self.row_of[step] = row
            for col in self.columns.values():
                col.append(NAN)
        return row

    def update(self, step: int, metrics: dict[str, float]) -> None:
        row = self._row(step)
        n = self.n_rows
        for key, value in metrics.items():
            col = self.columns.get(key)
            if col is None:
                col = array("d", [NAN]) * n
                self.columns[key] = col
            col[row] = value
            if value - value:  # NaN or ±inf (x - x is 0.0 for every finite x): one cheap test on the hot path
                self._count_non_finite(key, value)

    def _count_non_finite(self, key: str, value: float) -> None:
        kind = "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
        per_kind = self.non_finite.setdefault(key, {})
        per_kind[kind] = per_kind.get(kind, 0) + 1

    def forget(self, step: int, key: str) -> None:
        """Empty one cell (a value the reader decided not to trust), without counting it as read NaN."""
        row, col = self.row_of.get(step), self.columns.get(key)
        if row is not None and col is not None:
            col[row] = NAN

    def get(self, step: int, key: str) -> float:
        row = self.row_of.get(step)
        col = self.columns.get(key)
        if row is None or col is None:
            return NAN
        return col[row]

    def drop(self, step: int) -> dict[str, float]:
        """Forget a step's row (its cells stay allocated, unreachable) and return its set values:
        a restart replaces a killed attempt's step whole, and a re-anchored step moves whole."""
        row = self.row_of.pop(step, None)
        if row is None:
            return {}
        return {k: col[row] for k, col in self.columns.items() if not math.isnan(col[row])}

    def has_step(self, step: int) -> bool:
        return step in self.row_of

    @property
    def steps(self) -> list[int]:
        return sorted(self.row_of)

    def to_frame(self) -> pd.DataFrame:
        """One row per step, sorted by step; columns in first-seen order."""
        import numpy as np
        import pandas as pd

        order = np.argsort(np.fromiter(self.row_of.keys(), dtype=np.int64, count=len(self.row_of)))
        rows = np.fromiter(self.row_of.values(), dtype=np.int64, count=len(self.row_of))[order]
        steps = np.fromiter(self.row_of.keys(), dtype=np.int64, count=len(self.row_of))[order]
        data = {"step": steps}
        for key, col in self.columns.items():
            data[key] = np.frombuffer(col, dtype=np.float64)[rows]
        return pd.DataFrame(data)
