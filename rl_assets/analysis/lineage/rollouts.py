"""Where RL rollouts exist: in which training-step window did a behaviour or an imitation share move?

Rollouts carry a wall-clock `date` but no step; each is placed on the first training step whose
logged end time (`step_time_utc` of the training-metrics curves) is at or after it. Then, per
behavioural feature (and per gamed family with a constant trivial answer, the share of rollouts
giving that answer): Spearman's rho between step and the rollout's value with a permutation p,
Holm-adjusted across all series; a series **moved** when the adjusted p < α. Its **window** is the
middle half of the move: with L0 / L1 the mean of the first / last quarter of the steps and the
per-step means smoothed over a fifth of the steps, the first step where the smoothed curve has
covered 25% of L1 - L0 and the first where it has covered 75%.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rl_assets.analysis import stats
from rl_assets.analysis.audit.lenient import normalize_answer
from rl_assets.analysis.q1.paired_deltas import ALPHA
from rl_assets.analysis.stats.trend import spearman_permutation_p
from rl_assets.schema import FEATURE_COLUMNS

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

ROLLOUT_COLUMNS = ("date", "task_family", "answer", *FEATURE_COLUMNS)
MIN_STEPS = 4


def place_on_steps(dates: Iterable[Any], curves: dict[str, Any]) -> np.ndarray:
    """Training step per rollout: the first step that ended at or after it (NaN when undated or
    later than the last logged step)."""
    import numpy as np
    import pandas as pd

    end = pd.to_datetime(pd.Series(curves.get("step_time_utc") or [], dtype=object), utc=True, errors="coerce")
    step = pd.to_numeric(pd.Series(curves.get("step") or [], dtype=object), errors="coerce")
    frame = pd.DataFrame({"step": step, "end": end}).dropna().sort_values("end")
    t = pd.to_datetime(pd.Series(dates), utc=True, errors="coerce").dt.as_unit("ns")
    if frame.empty:
        return np.full(len(t), np.nan)
    ends = frame["end"].dt.as_unit("ns").to_numpy(dtype="int64")
    idx = np.searchsorted(ends, t.to_numpy(dtype="int64", na_value=0), side="left")
    ok = t.notna().to_numpy() & (idx < len(ends))
    return np.where(ok, frame["step"].to_numpy(float)[np.minimum(idx, len(ends) - 1)], np.nan)


def window(steps: np.ndarray, values: np.ndarray) -> tuple[int, int] | None:
    """The middle half of the move (see the module docstring); None with fewer than MIN_STEPS steps."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"s": steps, "v": values}).dropna()
    means = frame.groupby("s")["v"].mean().sort_index()
    if len(means) < MIN_STEPS:
        return None
    q = max(1, len(means) // 4)
    l0, l1 = means.iloc[:q].mean(), means.iloc[-q:].mean()
    if l1 == l0:
        return None
    smooth = means.rolling(max(1, len(means) // 5), center=True, min_periods=1).mean()
    progress = (smooth - l0) / (l1 - l0)
    start = progress.index[int(np.argmax(progress.to_numpy() >= 0.25))]
    after = progress[progress.index >= start]
    end = after.index[int(np.argmax(after.to_numpy() >= 0.75))] if (after >= 0.75).any() else progress.index[-1]
    return int(start), int(end)


def imitation_series(df: pd.DataFrame, gamed: dict[str, str]) -> dict[str, pd.Series]:
    """`imitation:<family>` -> 1.0 when a rollout of that family gives the trivial constant answer."""
    import numpy as np

    out: dict[str, pd.Series] = {}
    if "task_family" not in df or "answer" not in df:
        return out
    for family, answer in gamed.items():
        rows = df["task_family"] == family
        if rows.any():
            target = normalize_answer(answer)
            out[f"imitation:{family}"] = (
                df["answer"]
                .where(rows)
                .map(
                    lambda a, target=target: (
                        np.nan
                        if a is None or (isinstance(a, float) and np.isnan(a))
                        else float(normalize_answer(a) == target)
                    )
                )
            )
    return out


def rollout_windows(
    df: pd.DataFrame,
    curves: dict[str, Any] | None,
    gamed: dict[str, str],
    source: str,
    n_perm: int = stats.MIN_PERMUTATIONS,
    seed: int = 0,
) -> dict[str, Any]:
    """Trend test and move window per series; `applicable` False (with the reason) when it cannot run."""
    import numpy as np
    import pandas as pd

    if not curves or not curves.get("step_time_utc"):
        return {
            "applicable": False,
            "source": source,
            "reason": "no training-step times in the job's training logs to place rollouts on steps",
        }
    steps = place_on_steps(df["date"], curves)
    series = {f: pd.to_numeric(df[f], errors="coerce") for f in FEATURE_COLUMNS if f in df}
    series.update(imitation_series(df, gamed))
    rows: list[dict[str, Any]] = []
    for name, series_values in series.items():
        v = series_values.to_numpy(float)
        rho, p = spearman_permutation_p(steps, v, n_perm, seed)
        rows.append({"series": name, "rho": rho, "p": p, "n": int(np.sum(np.isfinite(steps) & np.isfinite(v)))})
    for row, adjusted in zip(rows, stats.holm_adjust([r["p"] for r in rows])):
        row["p_holm"] = adjusted
        row["moved"] = bool(adjusted is not None and adjusted < ALPHA)
        if row["moved"]:
            values = series[row["series"]].to_numpy(float)
            row["direction"] = "increase" if row["rho"] > 0 else "decrease"
            row["window"] = window(steps, values)
            means = pd.DataFrame({"s": steps, "v": values}).dropna().groupby("s")["v"].mean()
            row["per_step"] = [[int(k), float(m)] for k, m in zip(means.index.tolist(), means.tolist())]
    placed = int(np.isfinite(steps).sum())
    no_imitation = sorted(set(gamed) - {n.split(":", 1)[1] for n in series if n.startswith("imitation:")})
    return {
        "applicable": True,
        "source": source,
        "rollouts": int(len(df)),
        "placed_on_steps": placed,
        "steps": sorted({int(s) for s in steps[np.isfinite(steps)]}),
        "series": rows,
        "imitation_not_available": {f: "no rollout of this family with an answer" for f in no_imitation},
    }
