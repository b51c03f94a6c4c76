"""What the reward rise is attributable to: per-feature co-movement with reward across time bins.

Method (docs/q2.md): per behavioural feature, Spearman rho between the feature's bin mean and the
bin's headline mean reward (temporal.REWARD_DEFINITION: errors 0, infra errors dropped), with a
percentile bootstrap CI over bins; a lag-1 variant (feature in bin t vs reward in bin t+1: does the
feature lead?); and, because any two trending series correlate across bins, a within-bin check: the
pooled correlation between a rollout's feature and its reward (errors 0) after removing each bin's
means. A feature "moves with reward" when the bin CI excludes 0; it is named as a candidate driver
only when it also predicts reward inside bins with the same sign.
Rank correlations come from rl_assets.analysis.stats (correlation.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.q2.temporal import reward_outcomes
from rl_assets.analysis.stats import bootstrap_spearman, fisher_z_interval, pearson_rows, spearman

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

MIN_BINS = 5
FORMAT_LENGTH = frozenset(
    {
        "assistant_tokens",
        "mean_assistant_tokens",
        "think_tokens",
        "think_token_ratio",
        "think_blocks",
        "parse_error_markers",
        "code_fence_blocks",
        "premature_stop",
        "n_tokens",
        "response_length",
    }
)


def within_bin_r(rollouts: pd.DataFrame, feature: str) -> tuple[float, float, float, int]:
    """Pooled Pearson r of (feature - bin mean) with (reward0 - bin mean), Fisher-z 95% CI; reward0 is
    the rollout's reward with errors as 0 (infra errors dropped), the unit of the headline bin mean."""
    import pandas as pd

    df = reward_outcomes(rollouts)
    df = df[df["counted"] & df["bin"].ge(0)]
    f = pd.to_numeric(df[feature], errors="coerce")
    df = df.assign(_f=f)[f.notna()]
    n = len(df) - df["bin"].nunique()
    if n < 10:
        return (math.nan, math.nan, math.nan, max(n, 0))
    fx = df["_f"] - df.groupby("bin")["_f"].transform("mean")
    sy = df["reward0"].astype(float) - df.groupby("bin")["reward0"].transform("mean")
    r = float(pearson_rows(fx.to_numpy(), sy.to_numpy()))
    if not math.isfinite(r):
        return (math.nan, math.nan, math.nan, n)
    return (r, *fisher_z_interval(r, n), n)


def _excludes_zero(lo: float, hi: float) -> bool:
    return math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0)


def attribute(
    bins: pd.DataFrame,
    features: Iterable[str],
    rollouts: pd.DataFrame | None = None,
    reward_col: str = "mean_reward",
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Per-feature co-movement with reward across bins (+ lag-1, + within-bin check when the
    rollouts with their ``bin`` column are given). Returns a JSON-able dict with a verdict."""
    import numpy as np

    usable = bins[bins["n_counted"] > 0].sort_values("bin") if not bins.empty else bins
    out: dict[str, Any] = {
        "method": "Spearman across bins, percentile bootstrap CI over bins; lag-1; within-bin pooled r",
        "n_bins": int(len(usable)),
        "min_bins": MIN_BINS,
        "features": [],
        "top_features": [],
        "format_length_flag": None,
    }
    if len(usable) < MIN_BINS:
        out["status"] = "not enough data"
        out["reason"] = f"{len(usable)} time bin(s) with rollouts; attribution needs >= {MIN_BINS}"
        return out
    reward = usable[reward_col].to_numpy(float)
    order = np.arange(len(usable), dtype=float)
    lo, hi = bootstrap_spearman(order, reward, n_boot, seed)
    out["reward_trend"] = {
        "rho_with_time": spearman(order, reward),
        "ci": [lo, hi],
        "first_bin": float(reward[0]),
        "last_bin": float(reward[-1]),
    }
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
        row = {
            "feature": feat,
            "status": "ok",
            "rho": rho,
            "ci": [flo, fhi],
            "rho_lag1": spearman(x[:-1], reward[1:]),
            "rho_with_time": spearman(order, x),
            "moves_with_reward": _excludes_zero(flo, fhi),
            "format_length": feat in FORMAT_LENGTH,
        }
        if rollouts is not None and feat in rollouts.columns:
            r, rlo, rhi, n = within_bin_r(rollouts, feat)
            row.update(
                within_bin_r=r,
                within_bin_ci=[rlo, rhi],
                within_bin_n=n,
                predicts_within_bin=bool(_excludes_zero(rlo, rhi) and np.sign(r) == np.sign(rho)),
            )
        row["role"] = _role(row)
        out["features"].append(row)
    movers = [f for f in out["features"] if f.get("moves_with_reward")]
    movers.sort(key=lambda f: (not f.get("predicts_within_bin", False), -abs(f["rho"])))
    out["top_features"] = [f["feature"] for f in movers if f["role"] == "candidate driver"][:3] or [
        f["feature"] for f in movers
    ][:3]
    fmt = [f for f in movers if f["format_length"]]
    if rising and fmt:
        drivers = [f["feature"] for f in fmt if f["role"] != "co-trends with reward over time only"]
        trend_only = [f["feature"] for f in fmt if f["feature"] not in drivers]
        text = "possibly format/length-driven: the reward rise coincides with " + ", ".join(drivers or trend_only)
        if not drivers:
            text += " (co-trend only: none of them predicts reward within a bin)"
        out["format_length_flag"] = text
    out["status"] = "ok"
    out["reward_rising"] = bool(rising)
    return out


def _role(row: dict[str, Any]) -> str:
    if not row["moves_with_reward"]:
        return "no clear co-movement"
    if row.get("predicts_within_bin"):
        return "candidate driver"
    if "predicts_within_bin" in row:
        return "co-trends with reward over time only"
    return "moves with reward (no within-bin check)"


def summary_lines(result: dict[str, Any]) -> list[str]:
    """Plain-language lines for report.md and the Dagster metadata."""
    if result.get("status") != "ok":
        return [f"Attribution: not enough data — {result.get('reason', '')}"]
    tr = result["reward_trend"]
    lines = [
        f"Mean reward went {tr['first_bin']:.3f} -> {tr['last_bin']:.3f} over {result['n_bins']} bins "
        f"(Spearman with time {tr['rho_with_time']:+.2f}, CI [{tr['ci'][0]:+.2f}, {tr['ci'][1]:+.2f}])."
    ]
    if result["top_features"]:
        lines.append("Top features moving with reward: " + ", ".join(result["top_features"]) + ".")
    else:
        lines.append("No behavioural feature moves with reward beyond bootstrap noise.")
    if result["format_length_flag"]:
        lines.append(result["format_length_flag"] + ".")
    return lines
