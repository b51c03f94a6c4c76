"""Correlations (trends over training steps and time bins): Spearman and Kendall from scipy.stats,
Pearson's r with scipy.stats.pearsonr's arithmetic written out (Q1 runs it; see `pearson`), the
bootstrap interval of Spearman's rho (scipy.stats.bootstrap) and the Fisher-z interval of a Pearson r.
Every function drops pairs with a missing side and returns NaN where the coefficient is undefined
(fewer than 3 pairs, a constant side) instead of warning.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike


def _finite_pairs(x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok]


def _undefined(x: np.ndarray, y: np.ndarray) -> bool:
    import numpy as np

    return len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r along the last axis, NaN for a constant row.

    Why not a library: scipy.stats.pearsonr computes one pair per call (and warns on a constant
    one); bootstrap and permutation statistics need r for thousands of resampled rows at once.
    """
    import numpy as np

    x = x - x.mean(-1, keepdims=True)
    y = y - y.mean(-1, keepdims=True)
    den = np.sqrt((x * x).sum(-1) * (y * y).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (x * y).sum(-1) / den, np.nan)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho along the last axis: Pearson r of average ranks (scipy.stats.rankdata)."""
    from scipy.stats import rankdata

    return pearson_rows(rankdata(x, axis=-1), rankdata(y, axis=-1))


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    """Pearson r over pairs where both are finite: scipy.stats.pearsonr's statistic, written out.

    Why by hand: Q1 needs only r (no p), on every run, and scipy.stats' import costs more than a small
    Q1 run (rl_assets/analysis/stats/proportions.py); the same scaled arithmetic as scipy's, which
    tests/analysis/test_stats_light.py holds equal to it.
    """
    import numpy as np

    x, y = _finite_pairs(x, y)
    if _undefined(x, y):
        return math.nan
    xm, ym = x - x.mean(), y - y.mean()
    xmax, ymax = np.abs(xm).max(), np.abs(ym).max()  # scaled first, as scipy does, against overflow
    normxm = xmax * np.linalg.norm(xm / xmax)
    normym = ymax * np.linalg.norm(ym / ymax)
    return float(np.clip(np.dot(xm / normxm, ym / normym), -1.0, 1.0))


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman rho (scipy.stats.spearmanr) over pairs where both are finite."""
    x, y = _finite_pairs(x, y)
    if _undefined(x, y):
        return math.nan
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def linear_dependence(x: ArrayLike, y: ArrayLike) -> dict[str, float]:
    """How y depends on x over the finite pairs: the least-squares slope of y on x
    (scipy.stats.linregress), Spearman rho and Pearson r with their two-sided p (scipy.stats).
    Below 3 pairs or with a constant side: slope 0 (x explains nothing), rho and r NaN, p 1."""
    x, y = _finite_pairs(x, y)
    if _undefined(x, y):
        return {"slope": 0.0, "rho": math.nan, "p_rho": 1.0, "r": math.nan, "p_r": 1.0}
    from scipy.stats import linregress, pearsonr, spearmanr

    rho, r = spearmanr(x, y), pearsonr(x, y)
    return {
        "slope": float(linregress(x, y).slope),
        "rho": float(rho.statistic),
        "p_rho": float(rho.pvalue),
        "r": float(r.statistic),
        "p_r": float(r.pvalue),
    }


def kendall_tau_b(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall tau-b, tie-corrected (scipy.stats.kendalltau, O(n log n), so no series is thinned)."""
    x, y = _finite_pairs(x, y)
    if _undefined(x, y):
        return math.nan
    from scipy.stats import kendalltau

    return float(kendalltau(x, y, variant="b").statistic)


def bootstrap_spearman(
    x: ArrayLike, y: ArrayLike, n_boot: int = 2000, seed: int = 0, alpha: float = 0.05
) -> tuple[float, float]:
    """Percentile CI of Spearman rho resampling (x, y) pairs (scipy.stats.bootstrap, paired).

    Resamples with a constant side have no rho and drop out; when more than half do, the interval
    is (NaN, NaN): the data cannot support one.
    """
    import numpy as np

    x, y = _finite_pairs(x, y)
    if len(x) < 3:
        return (math.nan, math.nan)
    from scipy.stats import DegenerateDataWarning, bootstrap

    with warnings.catch_warnings():
        # scipy's own interval is NaN (and it warns) when a resample has a constant side; those
        # resamples are dropped below and the interval taken over the rest.
        warnings.simplefilter("ignore", DegenerateDataWarning)
        rhos = bootstrap(
            (x, y),
            lambda x, y, axis: spearman_rows(x, y),
            paired=True,
            vectorized=True,
            n_resamples=n_boot,
            batch=250,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).bootstrap_distribution
    rhos = rhos[np.isfinite(rhos)]
    if len(rhos) < n_boot / 2:
        return (math.nan, math.nan)
    return (float(np.quantile(rhos, alpha / 2)), float(np.quantile(rhos, 1 - alpha / 2)))


def fisher_z_interval(r: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% CI of a Pearson r from ``n`` pairs via Fisher's z = atanh(r), se = 1/sqrt(n - 3).

    Why not a library: scipy's PearsonRResult.confidence_interval needs the raw pairs, and the
    within-bin r of the attribution has only r and its n. |r| is clipped just below 1 so a perfect
    sample still gets a finite interval; n < 4 is treated as n = 4 (se 1), a wide interval rather
    than a division by zero.

    >>> tuple(round(v, 4) for v in fisher_z_interval(0.5, 28))
    (0.156, 0.7358)
    """
    zr = math.atanh(max(min(r, 0.999999), -0.999999))
    se = 1 / math.sqrt(max(n - 3, 1))
    return (math.tanh(zr - z * se), math.tanh(zr + z * se))
