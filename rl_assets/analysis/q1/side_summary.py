"""Q1's per-side quantities over every row of a side: solve rate, rewards, turns, tokens, error
types, failure modes and tool calls; and how a category's share shifted between the sides."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from rl_assets.analysis import stats

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

    from rl_assets.analysis.q1.paired_deltas import Samplers


def side_summary(df: pd.DataFrame, label: str, samplers: Samplers) -> dict[str, Any]:
    """Per-side macro metrics over every row of that side."""
    n, k = len(df), int(df["passed"].sum())
    lo, hi = stats.wilson_interval(k, n)
    by_task = df.groupby("task_id")
    out = {
        "label": label,
        "n_rows": n,
        "n_tasks": int(df["task_id"].nunique()),
        "solve_rate": {"k": k, "n": n, "rate": k / n if n else None, "lo": lo, "hi": hi, "se": stats.binomial_se(k, n)},
        "n_infra_errors": int(df["is_infra_error"].sum()),
    }
    for col in ("reward_errors_as_zero", "reward_infra_dropped"):
        means = by_task[col].mean().to_numpy(float)
        res = samplers(len(means)).mean_ci(means)
        out[col] = {
            "mean_rows": float(df[col].mean()) if df[col].notna().any() else None,
            "n_rows": int(df[col].notna().sum()),
            "task_clustered": res.to_dict(),
        }
    out["mean_turns"] = float(df["n_turns"].mean()) if df["n_turns"].notna().any() else None
    out["mean_tokens"] = float(df["n_tokens"].mean()) if df["n_tokens"].notna().any() else None
    out["error_types"] = _counts(df["error_type"])
    out["failure_modes"] = _counts(df["failure_mode"])
    out["failure_mode_coverage"] = float(df["failure_mode"].notna().mean()) if n else 0.0
    out["tool_calls_by_name"] = dict(_tool_counts(df["tool_calls_by_name"]))
    out["benchmarks"] = sorted(_counts(df["benchmark"]))
    return out


def _counts(series: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in series.dropna().value_counts().items()}


def _tool_counts(series: pd.Series) -> Counter[str]:
    total: Counter[str] = Counter()
    for raw in series.dropna():
        try:
            parsed = json.loads(raw)
        except (TypeError, ValueError):
            continue  # a malformed cell must not sink the whole report
        if isinstance(parsed, dict):
            total.update({str(k): int(v) for k, v in parsed.items() if isinstance(v, (int, float))})
    return total


def distribution_shift(
    before: dict[str, Any], n_before: int, after: dict[str, Any], n_after: int, top_n: int = 15
) -> list[dict[str, Any]]:
    """Share of each category per side, after - before with a Newcombe interval, largest first."""
    rows = []
    for key in set(before) | set(after):
        kb, ka = before.get(key, 0), after.get(key, 0)
        d, lo, hi = stats.two_proportion_diff_ci(kb, n_before, ka, n_after)
        rows.append(
            {
                "key": key,
                "before": kb,
                "after": ka,
                "before_share": kb / n_before if n_before else None,
                "after_share": ka / n_after if n_after else None,
                "shift": d,
                "lo": lo,
                "hi": hi,
                "ci_excludes_zero": bool(lo > 0 or hi < 0),
            }
        )
    rows.sort(key=lambda r: (-abs(r["shift"]) if r["shift"] == r["shift"] else 0, r["key"]))
    return rows[:top_n]
