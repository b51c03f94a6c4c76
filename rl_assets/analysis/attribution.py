"""What the reward rise is attributable to: per-feature co-movement with reward across time bins.

Method (docs/q2.md): per behavioural feature, Spearman rho between the feature's bin mean and the
bin reward rate, with a percentile bootstrap CI over bins; a lag-1 variant (feature in bin t vs
reward in bin t+1: does the feature lead?); and, because any two trending series correlate across
bins, a within-bin check: the pooled correlation between a rollout's feature and its success after
removing each bin's means. A feature "moves with reward" when the bin CI excludes 0; it is named as
a candidate driver only when it also predicts success inside bins with the same sign.
Rank correlations are defined here (stats.py has none yet; they should move there).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rl_assets.analysis.temporal import reward_outcomes

MIN_BINS = 5
FORMAT_LENGTH = frozenset({"assistant_tokens", "mean_assistant_tokens", "think_tokens", "think_token_ratio",
                           "think_blocks", "parse_error_markers", "code_fence_blocks", "premature_stop",
                           "n_tokens", "response_length"})


def _ranks(a: np.ndarray) -> np.ndarray:
    """Average ranks along the last axis (ties share their mean rank). 1-D goes through pandas
    (O(n log n), thousands of steps); 2-D bootstrap batches are a few dozen bins wide."""
    if a.ndim == 1:
        return pd.Series(a).rank(method="average").to_numpy()
    less = (a[..., :, None] > a[..., None, :]).sum(-1)
    equal = (a[..., :, None] == a[..., None, :]).sum(-1)
    return less + (equal + 1) / 2.0


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = x - x.mean(-1, keepdims=True)
    y = y - y.mean(-1, keepdims=True)
    den = np.sqrt((x * x).sum(-1) * (y * y).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (x * y).sum(-1) / den, np.nan)


def spearman(x, y) -> float:
    """Spearman rho over pairs where both are finite; NaN below 3 pairs or for a constant side."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return math.nan
    return float(_pearson_rows(_ranks(x[ok]), _ranks(y[ok])))


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
    rhos = np.concatenate([_pearson_rows(_ranks(x[c]), _ranks(y[c])) for c in np.array_split(idx, max(1, n_boot // 250))])
    rhos = rhos[np.isfinite(rhos)]
    if len(rhos) < n_boot / 2:
        return (math.nan, math.nan)
    return (float(np.quantile(rhos, alpha / 2)), float(np.quantile(rhos, 1 - alpha / 2)))


def within_bin_r(rollouts: pd.DataFrame, feature: str) -> tuple[float, float, float, int]:
    """Pooled Pearson r of (feature - bin mean) with (success - bin mean), Fisher-z 95% CI."""
    df = reward_outcomes(rollouts)
    df = df[df["counted"] & df["bin"].ge(0)]
    f = pd.to_numeric(df[feature], errors="coerce")
    df = df.assign(_f=f)[f.notna()]
    n = len(df) - df["bin"].nunique()
    if n < 10:
        return (math.nan, math.nan, math.nan, max(n, 0))
    fx = df["_f"] - df.groupby("bin")["_f"].transform("mean")
    sy = df["success"].astype(float) - df.groupby("bin")["success"].transform("mean")
    r = float(_pearson_rows(fx.to_numpy(), sy.to_numpy()))
    if not math.isfinite(r):
        return (math.nan, math.nan, math.nan, n)
    z, se = math.atanh(max(min(r, 0.999999), -0.999999)), 1 / math.sqrt(max(n - 3, 1))
    return (r, math.tanh(z - 1.96 * se), math.tanh(z + 1.96 * se), n)


def _excludes_zero(lo: float, hi: float) -> bool:
    return math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0)


def attribute(bins: pd.DataFrame, features, rollouts: pd.DataFrame | None = None,
              reward_col: str = "reward_rate", n_boot: int = 2000, seed: int = 0) -> dict:
    """Per-feature co-movement with reward across bins (+ lag-1, + within-bin check when the
    rollouts with their ``bin`` column are given). Returns a JSON-able dict with a verdict."""
    usable = bins[bins["n_counted"] > 0].sort_values("bin") if not bins.empty else bins
    out: dict = {"method": "Spearman across bins, percentile bootstrap CI over bins; lag-1; within-bin pooled r",
                 "n_bins": int(len(usable)), "min_bins": MIN_BINS, "features": [], "top_features": [],
                 "format_length_flag": None}
    if len(usable) < MIN_BINS:
        out["status"] = "not enough data"
        out["reason"] = f"{len(usable)} time bin(s) with rollouts; attribution needs >= {MIN_BINS}"
        return out
    reward = usable[reward_col].to_numpy(float)
    order = np.arange(len(usable), dtype=float)
    lo, hi = bootstrap_spearman(order, reward, n_boot, seed)
    out["reward_trend"] = {"rho_with_time": spearman(order, reward), "ci": [lo, hi],
                           "first_bin": float(reward[0]), "last_bin": float(reward[-1])}
    rising = _excludes_zero(lo, hi) and lo > 0
    for k, feat in enumerate(features):
        if feat not in usable.columns:
            continue
        x = usable[feat].to_numpy(float)
        if np.isfinite(x).sum() < MIN_BINS or np.nanstd(x) == 0:
            out["features"].append({"feature": feat, "status": "constant or missing"})
            continue
        rho = spearman(x, reward)
        flo, fhi = bootstrap_spearman(x, reward, n_boot, seed + 1 + k)
        row = {"feature": feat, "status": "ok", "rho": rho, "ci": [flo, fhi],
               "rho_lag1": spearman(x[:-1], reward[1:]), "rho_with_time": spearman(order, x),
               "moves_with_reward": _excludes_zero(flo, fhi), "format_length": feat in FORMAT_LENGTH}
        if rollouts is not None and feat in rollouts.columns:
            r, rlo, rhi, n = within_bin_r(rollouts, feat)
            row.update(within_bin_r=r, within_bin_ci=[rlo, rhi], within_bin_n=n,
                       predicts_within_bin=bool(_excludes_zero(rlo, rhi) and np.sign(r) == np.sign(rho)))
        row["role"] = _role(row)
        out["features"].append(row)
    movers = [f for f in out["features"] if f.get("moves_with_reward")]
    movers.sort(key=lambda f: (not f.get("predicts_within_bin", False), -abs(f["rho"])))
    out["top_features"] = [f["feature"] for f in movers if f["role"] == "candidate driver"][:3] or \
        [f["feature"] for f in movers][:3]
    fmt = [f for f in movers if f["format_length"]]
    if rising and fmt:
        drivers = [f["feature"] for f in fmt if f["role"] != "co-trends with reward over time only"]
        trend_only = [f["feature"] for f in fmt if f["feature"] not in drivers]
        text = "possibly format/length-driven: the reward rise coincides with " + ", ".join(drivers or trend_only)
        if not drivers:
            text += " (co-trend only: none of them predicts success within a bin)"
        out["format_length_flag"] = text
    out["status"] = "ok"
    out["reward_rising"] = bool(rising)
    return out


def _role(row: dict) -> str:
    if not row["moves_with_reward"]:
        return "no clear co-movement"
    if row.get("predicts_within_bin"):
        return "candidate driver"
    if "predicts_within_bin" in row:
        return "co-trends with reward over time only"
    return "moves with reward (no within-bin check)"


def summary_lines(result: dict) -> list[str]:
    """Plain-language lines for report.md and the Dagster metadata."""
    if result.get("status") != "ok":
        return [f"Attribution: not enough data — {result.get('reason', '')}"]
    tr = result["reward_trend"]
    lines = [f"Reward rate went {tr['first_bin']:.3f} -> {tr['last_bin']:.3f} over {result['n_bins']} bins "
             f"(Spearman with time {tr['rho_with_time']:+.2f}, CI [{tr['ci'][0]:+.2f}, {tr['ci'][1]:+.2f}])."]
    if result["top_features"]:
        lines.append("Top features moving with reward: " + ", ".join(result["top_features"]) + ".")
    else:
        lines.append("No behavioural feature moves with reward beyond bootstrap noise.")
    if result["format_length_flag"]:
        lines.append(result["format_length_flag"] + ".")
    return lines
