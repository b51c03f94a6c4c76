"""Q1: what changed in behaviour between a baseline and a post-RL eval, with real statistics.

Pure: two normalized trace tables (rl_assets.schema) in, one JSON-able dict out. Paired
quantities (feature deltas, solve-rate delta, task flips) use only the tasks both sides ran;
per-side quantities use every row. Methods are documented in docs/statistics.md. This module
reads the tables and assembles the result; side_summary.py, paired_deltas.py and summary.py
compute its parts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rl_assets.analysis import stats
from rl_assets.analysis.pairing.frames import paired_frames, show_ids
from rl_assets.analysis.q1.format_compliance import format_compliance
from rl_assets.analysis.q1.format_compliance import summary_lines as compliance_lines
from rl_assets.analysis.q1.paired_deltas import (
    ALPHA,
    PASS_THRESHOLD,
    Samplers,
    feature_deltas,
    mean_or_none,
    task_flips,
)
from rl_assets.analysis.q1.side_summary import distribution_shift, side_summary
from rl_assets.analysis.q1.summary import summary_lines
from rl_assets.schema import FEATURE_COLUMNS

# numpy, pandas, pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

GROUP_COLUMNS = ("benchmark", "task_family")
NEEDED = (
    "task_id",
    "benchmark",
    "task_family",
    "reward",
    "passed",
    "error_type",
    "is_infra_error",
    "n_turns",
    "n_tokens",
    "failure_mode",
    "tool_calls_by_name",
    *FEATURE_COLUMNS,
    "task_key",
    "task_key_source",
    "gen_settings",
    "answer",  # the source's extracted answer: format compliance (format_compliance.py)
)


def to_frame(table: pa.Table | pd.DataFrame, columns: Sequence[str] = NEEDED) -> pd.DataFrame:
    """Normalized table -> DataFrame with every needed column (absent ones all-null)."""
    import pandas as pd
    import pyarrow as pa

    df = table.to_pandas() if isinstance(table, pa.Table) else table.copy()
    for col in columns:
        if col not in df.columns:
            df[col] = None
    df = df[list(columns)].copy()
    df["task_id"] = df["task_id"].astype(str)
    df["passed"] = df["passed"].fillna(False).astype(bool)  # contract: no credit on error
    infra = df["is_infra_error"].fillna(False).astype(bool)
    reward0 = pd.to_numeric(df["reward"], errors="coerce").fillna(0.0)
    df["reward_errors_as_zero"] = reward0  # errors (infra too) and unscored rows count 0
    df["reward_infra_dropped"] = reward0.where(~infra)  # NaN = excluded from this definition
    df["is_infra_error"] = infra
    for col in (*FEATURE_COLUMNS, "n_turns", "n_tokens"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return df


def compare(b: pd.DataFrame, a: pd.DataFrame, labels: tuple[str, str], n_boot: int, seed: int) -> dict[str, Any]:
    """One before/after comparison (the whole table, or one benchmark / task family)."""
    samplers = Samplers(n_boot, seed)
    out: dict[str, Any] = {
        "before": side_summary(b, labels[0], samplers),
        "after": side_summary(a, labels[1], samplers),
    }
    common = sorted(set(b["task_id"]) & set(a["task_id"]))
    out["common_tasks"] = len(common)
    out["only_before_tasks"] = out["before"]["n_tasks"] - len(common)
    out["only_after_tasks"] = out["after"]["n_tasks"] - len(common)
    if not common:
        out["invalid_for_comparison"] = (
            f"the sides share no task ({out['before']['n_tasks']} vs {out['after']['n_tasks']} tasks; see the "
            "pairing table): a paired comparison is impossible (e.g. RL rollouts vs an eval set, or different "
            "benchmarks)"
        )
        return out
    out["invalid_for_comparison"] = None
    sampler = samplers(len(common))
    bg, ag = b.groupby("task_id"), a.groupby("task_id")
    paired: dict[str, dict[str, Any]] = {}
    for col in ("passed", "reward_errors_as_zero", "reward_infra_dropped"):
        bt, at = bg[col].mean().reindex(common), ag[col].mean().reindex(common)
        res = sampler.diff(bt.to_numpy(float), at.to_numpy(float), ALPHA)
        paired[col] = {"before": mean_or_none(bt), "after": mean_or_none(at), **res.to_dict()}
    out["paired"] = paired
    bt, at = bg["passed"].mean().reindex(common), ag["passed"].mean().reindex(common)
    out["task_flips"] = task_flips(bt, at)
    p_pool = float((bt.mean() + at.mean()) / 2)
    rho = stats.pearson(bt, at)
    rho = 0.0 if math.isnan(rho) else rho  # fewer than 3 tasks or a constant side: no correlation assumed
    se = paired["passed"].get("se")
    out["mde_solve_rate"] = {  # 80% power, alpha 0.05; the first is from the test actually run
        "mde": stats.mde_from_se(se, ALPHA) if se is not None else None,
        "mde_binomial_formula": stats.minimum_detectable_effect(p_pool, len(common), ALPHA, 0.8, True, max(rho, 0.0)),
        "p": p_pool,
        "n_tasks": len(common),
        "rho": rho,
    }
    out["features"] = feature_deltas(b, a, common, sampler)
    return out


def compute_behavioral_delta(
    before: pa.Table | pd.DataFrame,
    after: pa.Table | pd.DataFrame,
    *,
    labels: tuple[str, str] = ("baseline", "post-RL"),
    n_boot: int = 2000,
    seed: int = 0,
    top_n: int = 15,
    normalise: Sequence[str] = (),
) -> dict[str, Any]:
    """Q1 result: overall comparison, distribution shifts, and the same per benchmark / task family.
    ``normalise``: the task-id rules the settings ask for (rl_assets/analysis/pairing/pairs.py)."""
    b, a = to_frame(before), to_frame(after)
    pairing, shown = paired_frames(b, a, normalise)
    result: dict[str, Any] = {
        "labels": list(labels),
        "n_boot": n_boot,
        "seed": seed,
        "alpha": ALPHA,
        "pass_rule": f"passed = reward >= 1.0; task passes when mean(passed) >= {PASS_THRESHOLD}",
        "pairing": pairing,
        **compare(b, a, labels, n_boot, seed),
    }
    sb, sa = result["before"], result["after"]
    result["shifts"] = {
        "error_types": distribution_shift(sb["error_types"], sb["n_rows"], sa["error_types"], sa["n_rows"], top_n),
        "tool_calls": distribution_shift(
            sb["tool_calls_by_name"],
            sum(sb["tool_calls_by_name"].values()),
            sa["tool_calls_by_name"],
            sum(sa["tool_calls_by_name"].values()),
            top_n,
        ),
        "failure_modes": (
            distribution_shift(sb["failure_modes"], sb["n_rows"], sa["failure_modes"], sa["n_rows"], top_n)
            if sb["failure_modes"] or sa["failure_modes"]
            else None
        ),
    }
    result["groups"] = {}
    for col in GROUP_COLUMNS:
        values = sorted(set(b[col].dropna()) | set(a[col].dropna()))
        if len(values) < 2:  # one value = the overall comparison again
            continue
        result["groups"][col] = {str(v): compare(b[b[col] == v], a[a[col] == v], labels, n_boot, seed) for v in values}
    result["format_compliance"] = format_compliance(b, a)
    show_ids(result, shown)
    result["summary"] = summary_lines(result) + compliance_lines(result["format_compliance"])
    return result
