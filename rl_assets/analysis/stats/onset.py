"""Smoothing, noise level, sustained-onset detection, a monotone trend test and a level-shift test for
per-step curves.

Used by the reward-integrity analysis (docs/integrity.md): a signal "holds from step s" when a
condition on the smoothed curve is true at s and at each of the next logged steps, so one noisy
step never sets an onset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike

MAD_TO_SD = 1.4826  # the MAD of normal noise times this is its standard deviation


def rolling_median(values: ArrayLike, window: int) -> np.ndarray:
    """Centred rolling median over `window` logged points (fewer at the ends).

    Centred, so a step change at point i is still placed at i (an odd window's median flips
    exactly there); NaNs are ignored.

    >>> rolling_median([0, 0, 0, 9, 9, 9], 3).tolist()
    [0.0, 0.0, 0.0, 9.0, 9.0, 9.0]
    """
    import numpy as np
    import pandas as pd

    series = pd.Series(np.asarray(values, float))
    return series.rolling(window, center=True, min_periods=1).median().to_numpy()


def noise_level(values: ArrayLike, smoothed: ArrayLike) -> float:
    """Robust standard deviation of the residual around the smoothed curve (MAD × 1.4826)."""
    import numpy as np

    resid = np.asarray(values, float) - np.asarray(smoothed, float)
    resid = resid[np.isfinite(resid)]
    if not len(resid):
        return 0.0
    return float(MAD_TO_SD * np.median(np.abs(resid - np.median(resid))))


def start_level(values: ArrayLike, n: int) -> float:
    """Median of the first `n` finite values: where the curve started."""
    import numpy as np

    v = np.asarray(values, float)
    v = v[np.isfinite(v)][:n]
    return float(np.median(v)) if len(v) else float("nan")


def first_sustained(mask: ArrayLike, k: int) -> int | None:
    """Index of the first position from which `mask` is True for `k` consecutive positions.

    A run shorter than k that reaches the end of the series does not count: the signal has not
    been seen to hold for the stated number of steps.

    >>> first_sustained([0, 1, 1, 0, 1, 1, 1], 3), first_sustained([1, 1], 3)
    (4, None)
    """
    import numpy as np

    run = 0
    for i, hit in enumerate(np.asarray(mask, bool)):
        run = run + 1 if hit else 0
        if run == k:
            return i - k + 1
    return None


def kendall_trend(steps: ArrayLike, values: ArrayLike) -> tuple[float, float]:
    """(tau, two-sided p) of Kendall's tau between step and value (scipy); (nan, 1.0) with < 3 points."""
    import numpy as np

    x, y = np.asarray(steps, float), np.asarray(values, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.ptp(y[ok]) == 0:
        return float("nan"), 1.0
    from scipy import stats as sps  # imported on use: loading the definitions should not pay for scipy

    res = sps.kendalltau(x[ok], y[ok])
    return float(res.statistic), float(res.pvalue)


def shift_up_test(first: ArrayLike, rest: ArrayLike) -> float:
    """One-sided p that `rest` sits above `first` (scipy Mann-Whitney U, alternative "greater").

    A rank test, so one wild value in either window moves it little; 1.0 when either window has
    no finite value.

    >>> shift_up_test([0, 1, 0, 1, 0], [5, 6, 5, 6, 5, 6]) < 0.01
    True
    """
    import numpy as np

    a, b = np.asarray(first, float), np.asarray(rest, float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if not len(a) or not len(b):
        return 1.0
    from scipy import stats as sps  # imported on use, like kendall_trend

    return float(sps.mannwhitneyu(b, a, alternative="greater").pvalue)
