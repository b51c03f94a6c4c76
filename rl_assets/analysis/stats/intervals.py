"""Interval half-widths from a sample or a rate (docs/statistics.md): the Student t interval of a
mean (the Q2 reward of a time bin with non-binary rewards) and the re-run noise floor of a solve
rate (the model comparison)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

import math

from rl_assets.analysis.stats.student_t import t_quantile_975

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)


def t_interval_95(x: ArrayLike) -> tuple[float, float]:
    """95% Student t interval of the mean of `x` (finite values); (NaN, NaN) below 2 values.

    scipy.stats.t.interval's arithmetic with its t quantile, written out because t.interval returns
    NaN for a constant sample (scale 0), where the honest interval is the single value.
    """
    import numpy as np

    values = np.asarray(x, float)
    values = values[np.isfinite(values)]
    n = int(values.size)
    if n < 2:
        return math.nan, math.nan
    mean = float(values.mean())
    half = t_quantile_975(n - 1) * float(values.std(ddof=1)) / math.sqrt(n)  # t from scipy
    return mean - half, mean + half


def noise_floor(baseline_rate: float, n_tasks: int) -> float:
    """95% half-width of the difference between two independent evals at this rate on n tasks.

    A change smaller than this is what re-running the same eval alone produces.
    """
    if n_tasks <= 0 or not 0 < baseline_rate < 1:
        return math.nan
    return 1.96 * math.sqrt(2 * baseline_rate * (1 - baseline_rate) / n_tasks)
