"""Q1: what changed in behaviour between a baseline and a post-RL eval, with real statistics.

Pure: two normalized trace tables (rl_assets.schema) in, one JSON-able dict out. Paired
quantities (feature deltas, solve-rate delta, task flips) use only the tasks both sides ran;
per-side quantities use every row. Methods are documented in docs/statistics.md.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import TYPE_CHECKING

from rl_assets.analysis import stats
from rl_assets.analysis.pairing_frames import paired_frames, show_ids
from rl_assets.schema import FEATURE_COLUMNS

# numpy, pandas, pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

ALPHA = 0.05
PASS_THRESHOLD = 0.5  # a task passes when the mean of its attempts' `passed` is >= this
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
)


def to_frame(table: pa.Table | pd.DataFrame, columns=NEEDED) -> pd.DataFrame:
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


def _counts(series: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in series.dropna().value_counts().items()}


def _tool_counts(series: pd.Series) -> Counter:
    total: Counter = Counter()
    for raw in series.dropna():
        try:
            parsed = json.loads(raw)
        except (TypeError, ValueError):
            continue  # a malformed cell must not sink the whole report
        if isinstance(parsed, dict):
            total.update({str(k): int(v) for k, v in parsed.items() if isinstance(v, (int, float))})
    return total


def distribution_shift(before: dict, n_before: int, after: dict, n_after: int, top_n: int = 15) -> list[dict]:
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


class Samplers:
    """One PairedResampler per task count within a comparison: weights are drawn once, not per metric."""

    def __init__(self, n_boot: int, seed: int):
        self.n_boot, self.seed, self._by_n = n_boot, seed, {}

    def __call__(self, n: int) -> stats.PairedResampler:
        if n not in self._by_n:
            self._by_n[n] = stats.PairedResampler(n, self.n_boot, self.seed)
        return self._by_n[n]


def side_summary(df: pd.DataFrame, label: str, samplers: Samplers) -> dict:
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


def feature_deltas(b: pd.DataFrame, a: pd.DataFrame, common: list[str], sampler: stats.PairedResampler) -> list[dict]:
    """Per feature: paired, task-clustered delta over common tasks, effect size, Holm-adjusted p."""
    import numpy as np

    bm = b.groupby("task_id")[list(FEATURE_COLUMNS)].mean().reindex(common)
    am = a.groupby("task_id")[list(FEATURE_COLUMNS)].mean().reindex(common)
    b_rows, a_rows = b[b["task_id"].isin(common)], a[a["task_id"].isin(common)]
    rows = []
    for feat in FEATURE_COLUMNS:
        bv, av = bm[feat].to_numpy(float), am[feat].to_numpy(float)
        both = ~(np.isnan(bv) | np.isnan(av))
        row = {
            "feature": feat,
            "before_all_traces": _mean(b[feat]),
            "after_all_traces": _mean(a[feat]),
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


def _mean(s: pd.Series) -> float | None:
    return float(s.mean()) if s.notna().any() else None


def task_flips(bt: pd.Series, at: pd.Series, max_list: int = 25) -> dict:
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


def compare(b: pd.DataFrame, a: pd.DataFrame, labels: tuple[str, str], n_boot: int, seed: int) -> dict:
    """One before/after comparison (the whole table, or one benchmark / task family)."""
    samplers = Samplers(n_boot, seed)
    out = {"before": side_summary(b, labels[0], samplers), "after": side_summary(a, labels[1], samplers)}
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
    paired = {}
    for col in ("passed", "reward_errors_as_zero", "reward_infra_dropped"):
        bt, at = bg[col].mean().reindex(common), ag[col].mean().reindex(common)
        res = sampler.diff(bt.to_numpy(float), at.to_numpy(float), ALPHA)
        paired[col] = {"before": _mean(bt), "after": _mean(at), **res.to_dict()}
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
    before, after, *, labels=("baseline", "post-RL"), n_boot: int = 2000, seed: int = 0, top_n: int = 15, normalise=()
) -> dict:
    """Q1 result: overall comparison, distribution shifts, and the same per benchmark / task family.
    ``normalise``: the task-id rules the settings ask for (rl_assets/analysis/pairing.py)."""
    b, a = to_frame(before), to_frame(after)
    pairing, shown = paired_frames(b, a, normalise)
    labels = tuple(labels)
    result = {
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
    show_ids(result, shown)
    result["summary"] = summary_lines(result)
    return result


def summary_lines(r: dict) -> list[str]:
    """The human summary: what changed, in words, most important first."""
    from rl_assets.analysis.report_md import fmt_num, fmt_p, fmt_pct, fmt_signed

    if r.get("invalid_for_comparison"):
        return [f"Not comparable: {r['invalid_for_comparison']}."]
    pr, fl = r["paired"]["passed"], r["task_flips"]
    lines = []
    if "estimate" in pr:
        verdict = "a significant change" if pr["lo"] > 0 or pr["hi"] < 0 else "no significant change"
        lines.append(
            f"Solve rate on {r['common_tasks']} common tasks: {fmt_pct(pr['before'])} → {fmt_pct(pr['after'])} "
            f"({fmt_pct(pr['estimate'], signed=True)}, 95% CI {fmt_pct(pr['lo'], signed=True)} to "
            f"{fmt_pct(pr['hi'], signed=True)}): {verdict}; smallest change this sample detects "
            f"(80% power) ≈ {fmt_pct(r['mde_solve_rate']['mde'], signed=True).lstrip('+')}."
        )
    else:
        lines.append(f"Solve rate: not enough data for a paired interval ({pr.get('reason')}).")
    lines.append(
        f"Task flips: {fl['newly_passing']} newly passing vs {fl['newly_failing']} newly failing "
        f"(exact McNemar p = {fmt_p(fl['mcnemar_p'])})."
    )
    sig = [f for f in r["features"] if f["significant"]]
    nominal = [f for f in r["features"] if f.get("ci_excludes_zero") and not f["significant"]]
    for f in sorted(sig, key=lambda f: -abs(f.get("effect_size") or 0)):
        word = "increased" if f["delta"] > 0 else "decreased"
        lines.append(
            f"**{f['feature']}** {word}: {fmt_num(f['before'])} → {fmt_num(f['after'])} "
            f"(Δ {fmt_signed(f['delta'])}, CI {fmt_num(f['lo'])} to {fmt_num(f['hi'])}, "
            f"d = {fmt_num(f.get('effect_size'), 2)}, Holm p = {fmt_p(f['p_holm'])})."
        )
    tested = [f for f in r["features"] if not f.get("not_enough_data")]
    if not tested:
        lines.append(
            "Behavioural features: not enough data to test any of them "
            f"({r['features'][0]['not_enough_data'] if r['features'] else 'no features'})."
        )
    elif not sig:
        lines.append("No behavioural feature changed significantly after the Holm correction.")
    if nominal:
        lines.append(
            "Nominal only (95% CI excludes 0 but not after correcting for "
            f"{len(r['features'])} comparisons): " + ", ".join(f["feature"] for f in nominal) + "."
        )
    return lines
