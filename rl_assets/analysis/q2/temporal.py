"""UTC time bins shared by Q2 (RL rollouts over time) and Q3 (eval overlay), and per-bin rollout stats.

Bins are fixed multiples of ``bin_hours`` counted from the UTC epoch (1970-01-01T00:00Z), so two
analyses of the same period always get the same edges whatever their first timestamp is. Naive
timestamps are read as UTC (the normalized trace table is UTC already).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from rl_assets.analysis.stats import t_interval_95, wilson_interval
from rl_assets.schema import FEATURE_COLUMNS

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    from datetime import date

    import numpy as np
    import pandas as pd

REWARD_DEFINITION = (
    "mean reward per rollout, errors count as 0 (no credit), infrastructure errors (schema.INFRA_ERRORS) "
    "dropped from numerator and denominator; 95% CI: Wilson when every counted reward is 0 or 1, "
    "else Student t"
)
SHARE_DEFINITION = "share_reward_gt0 (secondary): share of the same counted rollouts with reward > 0, Wilson 95% CI"
# what utc_timestamp reads: an ISO string, epoch nanoseconds, a date/datetime (pd.Timestamp is one)
TimeValue: TypeAlias = "str | float | date | np.datetime64"


def reward_summary(reward0: Iterable[float]) -> dict[str, Any]:
    """THE headline reward of a group of counted rollouts (Q2 bins, the Q3 RL line and eval markers).

    ``reward0`` holds the counted rollouts' rewards with errors already 0 and infra errors already
    removed (``reward_outcomes``). Returns n, mean, 95% CI (lo, hi) and the CI method: Wilson when
    every reward is 0 or 1, else a Student t interval (NaN with fewer than 2 rollouts); empty -> NaN.
    """
    import numpy as np
    import pandas as pd

    x = pd.to_numeric(pd.Series(reward0, dtype="float64"), errors="coerce").dropna().to_numpy(float)
    n = int(x.size)
    if n == 0:
        return {"n": 0, "mean": math.nan, "lo": math.nan, "hi": math.nan, "ci_method": None}
    mean = float(x.mean())
    if np.isin(x, (0.0, 1.0)).all():
        lo, hi = wilson_interval(int(x.sum()), n)
        return {"n": n, "mean": mean, "lo": lo, "hi": hi, "ci_method": "wilson"}
    lo, hi = t_interval_95(x)  # NaN with fewer than 2 rollouts
    return {"n": n, "mean": mean, "lo": lo, "hi": hi, "ci_method": "t"}


def utc_timestamp(ts: TimeValue) -> pd.Timestamp:
    """Any time value -> an aware UTC pandas Timestamp (naive values are taken as UTC)."""
    import pandas as pd

    ts = pd.Timestamp(ts)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def bin_edges(start: TimeValue, end: TimeValue, bin_hours: float) -> pd.DatetimeIndex:
    """Edges e0 < e1 < ... aligned to the UTC epoch with e0 <= start and end < e_last.

    >>> list(bin_edges("2026-05-20 02:10", "2026-05-20 09:00", 4).strftime("%H:%M"))
    ['00:00', '04:00', '08:00', '12:00']
    """
    import numpy as np
    import pandas as pd

    if not (bin_hours > 0 and math.isfinite(bin_hours)):
        raise ValueError(f"bin_hours must be a positive number, got {bin_hours!r}")
    width = int(round(bin_hours * 3600 * 1e9))
    s, e = utc_timestamp(start).value, utc_timestamp(end).value
    if e < s:
        raise ValueError(f"bin_edges: end {utc_timestamp(end)} is before start {utc_timestamp(start)}")
    first = (s // width) * width
    last = (e // width + 1) * width
    return pd.DatetimeIndex(pd.to_datetime(np.arange(first, last + 1, width), utc=True))


def assign_bins(times: pd.Series, edges: pd.DatetimeIndex) -> np.ndarray:
    """Bin index per timestamp ([e_i, e_i+1) is bin i); -1 for missing or out-of-range times."""
    import numpy as np
    import pandas as pd

    # pandas 3 keeps parquet's microsecond unit; compare in nanoseconds on both sides
    t = pd.to_datetime(pd.Series(times), utc=True).dt.as_unit("ns")
    ns = t.to_numpy(dtype="int64", na_value=0) if len(t) else np.array([], dtype=np.int64)
    idx = np.searchsorted(edges.as_unit("ns").asi8, ns, side="right") - 1
    bad = t.isna().to_numpy() | (idx < 0) | (idx >= len(edges) - 1)
    return np.where(bad, -1, idx).astype(np.int64)


def bin_label(edge: TimeValue) -> str:
    return utc_timestamp(edge).strftime("%Y-%m-%d %H:%M")


def reward_outcomes(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``counted`` (row enters the headline: not an infra error), ``reward0`` (reward, errors as
    0; NaN for infra errors) and ``success`` (reward > 0; errors 0) under REWARD_DEFINITION."""
    import pandas as pd

    infra = df["is_infra_error"].fillna(False).astype(bool)
    reward0 = pd.to_numeric(df["reward"], errors="coerce").fillna(0.0)
    return df.assign(counted=~infra, success=(reward0 > 0) & ~infra, reward0=reward0.where(~infra))


def bin_rollouts(
    traces: pd.DataFrame, bin_hours: float, features: Sequence[str] = FEATURE_COLUMNS
) -> tuple[pd.DataFrame, dict[str, Any], pd.DataFrame, pd.DatetimeIndex | None]:
    """Per-bin n, the headline mean reward with its 95% CI (``reward_summary``), the secondary share
    of rollouts with reward > 0 (Wilson CI), error rates and behavioural feature means.

    Returns (bins frame, info, dated rollouts with their ``bin``, edges). Undated rows are counted in info and kept out
    of every bin; the first/last bins are marked ``partial`` when the data do not cover them fully (never dropped).
    """
    import pandas as pd

    df = reward_outcomes(traces)
    dates = pd.to_datetime(df["date"], utc=True)
    dated = df[dates.notna()].assign(_t=dates[dates.notna()])
    info = {
        "rows": int(len(df)),
        "undated_rows": int(len(df) - len(dated)),
        "bin_hours": bin_hours,
        "reward_definition": REWARD_DEFINITION,
        "share_definition": SHARE_DEFINITION,
    }
    if dated.empty:
        return pd.DataFrame(), info, dated.assign(bin=pd.Series(dtype="int64")), None
    edges = bin_edges(dated["_t"].min(), dated["_t"].max(), bin_hours)
    dated = dated.assign(bin=assign_bins(dated["_t"], edges))
    rows = []
    for i in range(len(edges) - 1):
        g = dated[dated["bin"] == i]
        head = reward_summary(g.loc[g["counted"], "reward0"])
        n_counted, k = head["n"], int(g["success"].sum())
        lo, hi = wilson_interval(k, n_counted) if n_counted else (math.nan, math.nan)
        row = {
            "bin": i,
            "label": bin_label(edges[i]),
            "start": edges[i],
            "end": edges[i + 1],
            "n": int(len(g)),
            "n_counted": n_counted,
            "n_infra": int(len(g) - n_counted),
            "mean_reward": head["mean"],
            "mean_reward_lo": head["lo"],
            "mean_reward_hi": head["hi"],
            "mean_reward_ci": head["ci_method"],
            "share_reward_gt0": k / n_counted if n_counted else math.nan,
            "share_reward_gt0_lo": lo,
            "share_reward_gt0_hi": hi,
            "error_rate": float(g["error_type"].notna().mean()) if len(g) else math.nan,
            "n_tasks": int(g["task_id"].nunique()),
            "partial": bool(edges[i] < dated["_t"].min() or edges[i + 1] > dated["_t"].max()),
        }
        for f in features:
            if f in g.columns:
                row[f] = float(pd.to_numeric(g[f], errors="coerce").mean()) if len(g) else math.nan
        rows.append(row)
    info["edges"] = [e.isoformat() for e in edges]
    return pd.DataFrame(rows), info, dated, edges


def steps_per_bin(
    steps: pd.DataFrame | None,
    edges: pd.DatetimeIndex,
    metrics: Sequence[str] = ("reward", "entropy", "kl", "response_length"),
) -> pd.DataFrame:
    """Training steps whose end time (``step_time_utc``) falls in each bin: first/last step and the
    mean of the canonical training metrics — the wall-clock join between rollouts and the trainer."""
    import pandas as pd

    if steps is None or steps.empty or "step_time_utc" not in steps.columns:
        return pd.DataFrame({"bin": range(len(edges) - 1)})
    s = steps.assign(bin=assign_bins(steps["step_time_utc"], edges))
    s = s[s["bin"] >= 0]
    agg = {"first_step": ("step", "min"), "last_step": ("step", "max"), "n_steps": ("step", "size")}
    agg.update({f"log_{m}": (m, "mean") for m in metrics if m in s.columns})
    out = s.groupby("bin").agg(**agg).reindex(range(len(edges) - 1))
    return out.rename_axis("bin").reset_index()
