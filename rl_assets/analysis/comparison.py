"""Cross-model comparison on ONE pinned benchmark (seed 000's hardest-learned rule).

A per-model "best" benchmark flatters every model and once corrupted a 9-model study, so this
compares every model's post-RL vs baseline change on the same benchmark, each against that
benchmark's noise floor, and refuses to rank rows that come from different benchmarks.
"""

from __future__ import annotations

import math

import numpy as np

from rl_assets.analysis.stats import mcnemar_exact, minimum_detectable_effect, wilson_interval

MIN_TASKS = 5  # below this a model's delta is reported as not enough data, not ranked


class MixedBenchmarksError(ValueError):
    """Rows from different benchmarks cannot be ranked against each other."""


def task_pass_rates(rows: list[dict]) -> dict[str, float]:
    """Per task, the share of attempts that passed (infra-error attempts dropped)."""
    by_task: dict[str, list[float]] = {}
    for row in rows:
        if row.get("is_infra_error"):
            continue
        by_task.setdefault(row["task_id"], []).append(1.0 if row.get("passed") else 0.0)
    return {task: float(np.mean(v)) for task, v in by_task.items()}


def model_row(model_id: str, baseline: dict[str, float], post: dict[str, float]) -> dict:
    """One model's paired change on the common tasks of the pinned benchmark."""
    common = sorted(set(baseline) & set(post))
    n = len(common)
    row = {"model_id": model_id, "n_common_tasks": n, "n_baseline_tasks": len(baseline), "n_post_tasks": len(post)}
    if n < MIN_TASKS:
        return {**row, "status": f"not enough data: {n} common task(s) (< {MIN_TASKS})"}
    b = np.array([baseline[t] for t in common])
    a = np.array([post[t] for t in common])
    diffs = a - b
    se = float(diffs.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    # McNemar on task-level outcomes: a task passes when most of its attempts pass.
    b_pass, a_pass = b >= 0.5, a >= 0.5
    lost, gained = int((b_pass & ~a_pass).sum()), int((~b_pass & a_pass).sum())
    lo, hi = wilson_interval(int(a_pass.sum()), n)
    return {
        **row,
        "status": "ok",
        "baseline_rate": float(b.mean()),
        "post_rate": float(a.mean()),
        "delta": float(diffs.mean()),
        "se": se,
        "ci95": [float(diffs.mean() - 1.96 * se), float(diffs.mean() + 1.96 * se)],
        "post_task_pass_wilson": [lo, hi],
        "mcnemar": {"newly_failing": lost, "newly_passing": gained, "p": mcnemar_exact(lost, gained)},
    }


def compare(benchmark: dict, rows: list[dict], excluded: list[dict]) -> dict:
    """Rank models by delta on one benchmark, each judged against the benchmark's noise floor."""
    benchmarks = {r.get("benchmark_id") for r in rows}
    if len(benchmarks - {benchmark["id"]}) > 0:
        raise MixedBenchmarksError(
            f"refusing to rank: rows come from benchmarks {sorted(map(str, benchmarks))}, not only the pinned {benchmark['name']}"
        )
    ok = [r for r in rows if r["status"] == "ok"]
    n_tasks = max((r["n_common_tasks"] for r in ok), default=0)
    pooled = float(np.mean([r["baseline_rate"] for r in ok])) if ok else math.nan
    usable = ok and 0 < pooled < 1
    # Noise floor: the 95% half-width of the difference between two independent evals of the same
    # model on this benchmark (binomial SE at the pooled baseline rate, N tasks) — a change below it
    # is what re-running the eval alone produces. The MDE (80% power) is reported beside it.
    floor = 1.96 * math.sqrt(2 * pooled * (1 - pooled) / n_tasks) if usable else math.nan
    mde = minimum_detectable_effect(pooled, n_tasks) if usable else math.nan
    for r in ok:
        r["above_noise_floor"] = bool(abs(r["delta"]) > floor) if not math.isnan(floor) else None
    ranked = sorted(ok, key=lambda r: r["delta"], reverse=True)
    return {
        "benchmark": benchmark,
        "noise_floor": {"half_width_95": floor, "mde_80_power": mde, "pooled_baseline_rate": pooled, "n_tasks": n_tasks},
        "ranked": ranked,
        "not_enough_data": [r for r in rows if r["status"] != "ok"],
        "excluded": excluded,
    }
