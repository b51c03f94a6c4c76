"""Q1's paired quantities on the tasks both sides ran: per-feature task-clustered deltas with
Holm-adjusted tests, and task-level pass flips with an exact McNemar test (docs/statistics.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis import stats
from rl_assets.schema import FEATURE_COLUMNS

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

ALPHA = 0.05
PASS_THRESHOLD = 0.5  # a task passes when the mean of its attempts' `passed` is >= this


class Samplers:
    """One PairedResampler per task count within a comparison: weights are drawn once, not per metric."""

    def __init__(self, n_boot: int, seed: int) -> None:
        self.n_boot, self.seed = n_boot, seed
        self._by_n: dict[int, stats.PairedResampler] = {}

    def __call__(self, n: int) -> stats.PairedResampler:
        if n not in self._by_n:
            self._by_n[n] = stats.PairedResampler(n, self.n_boot, self.seed)
        return self._by_n[n]


def feature_deltas(
    b: pd.DataFrame, a: pd.DataFrame, common: list[str], sampler: stats.PairedResampler
) -> list[dict[str, Any]]:
    """Per feature: paired, task-clustered delta over common tasks, effect size, Holm-adjusted p."""
    import numpy as np

    bm = b.groupby("task_id")[list(FEATURE_COLUMNS)].mean().reindex(common)
    am = a.groupby("task_id")[list(FEATURE_COLUMNS)].mean().reindex(common)
    b_rows, a_rows = b[b["task_id"].isin(common)], a[a["task_id"].isin(common)]
    rows: list[dict[str, Any]] = []
    for feat in FEATURE_COLUMNS:
        bv, av = bm[feat].to_numpy(float), am[feat].to_numpy(float)
        both = ~(np.isnan(bv) | np.isnan(av))
        row: dict[str, Any] = {
            "feature": feat,
            "before_all_traces": mean_or_none(b[feat]),
            "after_all_traces": mean_or_none(a[feat]),
            "before": float(bv[both].mean()) if both.any() else None,
            "after": float(av[both].mean()) if both.any() else None,
        }
        res = sampler.diff(np.where(both, bv, np.nan), np.where(both, av, np.nan), ALPHA)
        if isinstance(res, stats.NotEnoughData):
            row.update(not_enough_data=res.reason, n_tasks=res.n, p=None)
        else:
            row.update(
                delta=res.estimate,
                lo=res.lo,
                hi=res.hi,
                se=res.se,
                n_tasks=res.n_tasks,
                p=res.p_value,
                ci_excludes_zero=res.excludes_zero,
                mde=stats.mde_from_se(res.se, ALPHA),
                effect_size=stats.standardized_effect(
                    b_rows[feat].to_numpy(float), a_rows[feat].to_numpy(float), res.estimate
                ),
            )
        rows.append(row)
    for row, p_adj in zip(rows, stats.holm_adjust([r["p"] for r in rows])):
        row["p_holm"] = p_adj
        # Both: the interval (unadjusted) excludes 0 AND the family-wise (Holm) test agrees, so 15
        # features at 95 % do not produce a "significant" change by chance half of the time.
        row["significant"] = bool(row.get("ci_excludes_zero")) and p_adj is not None and p_adj < ALPHA
    return rows


def mean_or_none(s: pd.Series) -> float | None:
    """The mean of the logged values, None when there is none."""
    return float(s.mean()) if s.notna().any() else None


def task_flips(bt: pd.Series, at: pd.Series, max_list: int = 25) -> dict[str, Any]:
    """Task-level pass (mean passed >= PASS_THRESHOLD) on common tasks; exact McNemar on flips."""
    before_pass, after_pass = bt >= PASS_THRESHOLD, at >= PASS_THRESHOLD
    newly_failing = sorted(bt.index[before_pass & ~after_pass])
    newly_passing = sorted(bt.index[~before_pass & after_pass])
    b, c = len(newly_failing), len(newly_passing)
    return {
        "rule": f"task passes when mean(passed) over its attempts >= {PASS_THRESHOLD}",
        "n_common": int(len(bt)),
        "both_pass": int((before_pass & after_pass).sum()),
        "both_fail": int((~before_pass & ~after_pass).sum()),
        "newly_failing": b,
        "newly_passing": c,
        "mcnemar_p": stats.mcnemar_exact(b, c),
        "newly_passing_tasks": newly_passing[:max_list],
        "newly_failing_tasks": newly_failing[:max_list],
    }
