"""Cross-model comparison on ONE pinned benchmark (seed 000's hardest-learned rule).

A per-model "best" benchmark flatters every model and once corrupted a 9-model study, so this
compares every model's post-RL vs baseline change on the same benchmark, each against its own
noise floor on that benchmark, and refuses to rank rows that come from different benchmarks.
Intervals and tests come from rl_assets.analysis.stats, so "significant" means what it means in Q1.
"""

from __future__ import annotations

import math

from rl_assets.analysis.pairing.pairs import DISJOINT, ONLY_AFTER, ONLY_BEFORE, pair_rows
from rl_assets.analysis.q1.paired_deltas import PASS_THRESHOLD
from rl_assets.analysis.stats import NotEnoughData, mcnemar_exact, minimum_detectable_effect, paired_bootstrap_arrays
from rl_assets.analysis.stats.intervals import noise_floor

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)


class MixedBenchmarksError(ValueError):
    """Rows from different benchmarks cannot be ranked against each other."""


def task_pass_rates(rows: list[dict], keys: list[str] | None = None) -> dict[str, float]:
    """Per task (``keys[i]`` for row i, else its task_id), the share of attempts that passed
    (infra-error attempts dropped)."""
    import numpy as np

    by_task: dict[str, list[float]] = {}
    for i, row in enumerate(rows):
        if row.get("is_infra_error"):
            continue
        by_task.setdefault(keys[i] if keys else row["task_id"], []).append(1.0 if row.get("passed") else 0.0)
    return {task: float(np.mean(v)) for task, v in by_task.items()}


def paired_pass_rates(
    model_id: str, base_rows: list[dict], post_rows: list[dict], normalise=()
) -> tuple[dict, dict, dict]:
    """Both sides' per-task pass rates keyed by the pairing every analysis shares
    (rl_assets/analysis/pairing/pairs.py), and its report (one group: the model)."""
    sides = [[r for r in rows if not r.get("is_infra_error")] for rows in (base_rows, post_rows)]
    pairing = pair_rows(*sides, normalise=normalise, group_of=lambda r: model_id)
    return (
        task_pass_rates(sides[0], pairing.before.keys),
        task_pass_rates(sides[1], pairing.after.keys),
        pairing.report,
    )


def model_row(
    model_id: str, baseline: dict[str, float], post: dict[str, float], n_boot: int = 2000, seed: int = 0
) -> dict:
    """One model's paired change on the common tasks of the pinned benchmark."""
    import numpy as np

    common = sorted(set(baseline) & set(post))
    n = len(common)
    row = {"model_id": model_id, "n_common_tasks": n, "n_baseline_tasks": len(baseline), "n_post_tasks": len(post)}
    b = np.array([baseline[t] for t in common])
    a = np.array([post[t] for t in common])
    if not n:  # nothing paired: said as such, never "not enough data"
        return {**row, "status": ONLY_BEFORE if not post else ONLY_AFTER if not baseline else DISJOINT}
    result = paired_bootstrap_arrays(b, a, n_boot=n_boot, seed=seed)
    if isinstance(result, NotEnoughData):
        return {**row, "status": f"not enough data: {result.reason}"}
    # McNemar on task-level outcomes, with Q1's rule for when a task passes.
    b_pass, a_pass = b >= PASS_THRESHOLD, a >= PASS_THRESHOLD
    lost, gained = int((b_pass & ~a_pass).sum()), int((~b_pass & a_pass).sum())
    floor = noise_floor(float(b.mean()), n)
    return {
        **row,
        "status": "ok",
        "baseline_rate": float(b.mean()),
        "post_rate": float(a.mean()),
        "delta": result.estimate,
        "se": result.se,
        "ci95": [result.lo, result.hi],
        "significant": result.excludes_zero,
        "noise_floor": floor,
        "mde_80_power": minimum_detectable_effect(float(b.mean()), n),
        "above_noise_floor": bool(abs(result.estimate) > floor) if not math.isnan(floor) else None,
        "mcnemar": {"newly_failing": lost, "newly_passing": gained, "p": mcnemar_exact(lost, gained)},
    }


def merged_pairing(reports: list[dict]) -> dict | None:
    """One pairing table over every model (one group each); near misses and setting differences
    keep the model they belong to."""
    if not reports:
        return None
    groups = [g for r in reports for g in r["groups"]]
    return {
        "rule": reports[0]["rule"],
        "normalisation": reports[0]["normalisation"],
        "groups": groups,
        "totals": {k: sum(g[k] for g in groups) for k in ("paired", "only_before", "only_after")},
        "near_miss": None,
        "near_misses": {r["groups"][0]["group"]: r["near_miss"] for r in reports if r["near_miss"] and r["groups"]},
        "settings_differ": [
            {**d, "setting": f"{r['groups'][0]['group']}: {d['setting']}"}
            for r in reports
            if r["groups"]
            for d in r["settings_differ"]
        ],
    }


def compare(benchmark: dict, rows: list[dict], excluded: list[dict], pairings: list[dict] = ()) -> dict:
    """Rank models by delta on one benchmark; each row carries its own noise floor and interval."""
    benchmarks = {r.get("benchmark_id") for r in rows}
    if benchmarks - {benchmark["id"]}:
        raise MixedBenchmarksError(
            f"refusing to rank: rows come from benchmarks {sorted(map(str, benchmarks))}, not only the pinned "
            f"{benchmark['name']}"
        )
    ok = [r for r in rows if r["status"] == "ok"]
    return {
        "benchmark": benchmark,
        "ranking_rule": "by paired change in task pass rate; a change counts only when its 95% interval excludes 0 "
        "and it exceeds that model's noise floor (two evals' difference at its baseline rate and task count)",
        "ranked": sorted(ok, key=lambda r: r["delta"], reverse=True),
        "not_enough_data": [r for r in rows if r["status"] != "ok"],
        "excluded": excluded,
        "pairing": merged_pairing(list(pairings)),
    }
