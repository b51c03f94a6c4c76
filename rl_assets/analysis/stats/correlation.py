"""Rank correlations and their bootstrap intervals (trends over training steps and time bins)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def _ranks(a: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis (ties share their mean rank). 1-D goes through pandas
    (O(n log n), thousands of steps); 2-D bootstrap batches are a few dozen bins wide."""
    if a.ndim == 1:
        return pd.Series(a).rank(method="average").to_numpy()
    less = (a[..., :, None] > a[..., None, :]).sum(-1)
    equal = (a[..., :, None] == a[..., None, :]).sum(-1)
    return less + (equal + 1) / 2.0


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = x - x.mean(-1, keepdims=True)
    y = y - y.mean(-1, keepdims=True)
    den = np.sqrt((x * x).sum(-1) * (y * y).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (x * y).sum(-1) / den, np.nan)


def pearson(x, y) -> float:
    """Pearson r over pairs where both are finite; NaN below 3 pairs or for a constant side."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return math.nan
    return float(pearson_rows(x[ok], y[ok]))


def spearman(x, y) -> float:
    """Spearman rho over pairs where both are finite; NaN below 3 pairs or for a constant side."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return math.nan
    return float(pearson_rows(_ranks(x[ok]), _ranks(y[ok])))


def kendall_tau_b(x, y, max_n: int = 2000) -> float:
    """Kendall tau-b (tie-corrected). O(n^2), so longer series are thinned to ``max_n`` evenly
    spaced pairs (deterministic; a trend estimate barely moves)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) > max_n:
        keep = np.linspace(0, len(x) - 1, max_n).round().astype(int)
        x, y = x[keep], y[keep]
    if len(x) < 3:
        return math.nan
    dx, dy = np.sign(x[:, None] - x[None, :]), np.sign(y[:, None] - y[None, :])
    iu = np.triu_indices(len(x), 1)
    dx, dy = dx[iu], dy[iu]
    den = math.sqrt(float((dx != 0).sum()) * float((dy != 0).sum()))
    return float((dx * dy).sum() / den) if den > 0 else math.nan


def bootstrap_spearman(x, y, n_boot: int = 2000, seed: int = 0, alpha: float = 0.05) -> tuple[float, float]:
    """Percentile CI of Spearman rho resampling (x, y) pairs; resamples with a constant side drop out."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3:
        return (math.nan, math.nan)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(n_boot, len(x)))
    rhos = np.concatenate([pearson_rows(_ranks(x[c]), _ranks(y[c])) for c in np.array_split(idx, max(1, n_boot // 250))])
    rhos = rhos[np.isfinite(rhos)]
    if len(rhos) < n_boot / 2:
        return (math.nan, math.nan)
    return (float(np.quantile(rhos, alpha / 2)), float(np.quantile(rhos, 1 - alpha / 2)))


def fisher_z_interval(r: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% CI of a Pearson r from ``n`` pairs via Fisher's z = atanh(r), se = 1/sqrt(n - 3).
    |r| is clipped just below 1 so a perfect sample still gets a finite interval; n < 4 is
    treated as n = 4 (se 1), a wide interval rather than a division by zero.

    >>> tuple(round(v, 4) for v in fisher_z_interval(0.5, 28))
    (0.156, 0.7358)
    """
    zr = math.atanh(max(min(r, 0.999999), -0.999999))
    se = 1 / math.sqrt(max(n - 3, 1))
    return (math.tanh(zr - z * se), math.tanh(zr + z * se))
