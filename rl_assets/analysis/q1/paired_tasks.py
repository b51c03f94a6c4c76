"""Q1's rows keyed by the one pairing every analysis shares (rl_assets/analysis/pairing.py).

Q1 groups by ``task_id`` throughout; ``paired_frames`` rewrites that column to the pairing key, so
Q1 pairs exactly the tasks the audit and the comparison pair, and ``show_ids`` turns the keys in
its task lists back into task ids a reader recognises.
"""

from __future__ import annotations

import pandas as pd

from rl_assets.analysis.pairing import pair_rows

PAIRING_COLUMNS = ("task_id", "task_key", "task_key_source", "task_family", "benchmark", "gen_settings")


def paired_frames(b: pd.DataFrame, a: pd.DataFrame, normalise=()) -> tuple[dict, dict[str, str]]:
    """Rewrite both frames' ``task_id`` to the pairing key every analysis shares (rl_assets/analysis/
    pairing.py), so the paired statistics below pair the same tasks as the audit; returns the
    pairing report and key -> the task id a reader recognises."""
    pairing = pair_rows(*(df[list(PAIRING_COLUMNS)].astype(object).where(df[list(PAIRING_COLUMNS)].notna(), None)
                          .to_dict("records") for df in (b, a)), normalise=normalise)
    b["task_id"], a["task_id"] = pairing.before.keys, pairing.after.keys
    return pairing.report, {**pairing.after.shown, **pairing.before.shown}


def show_ids(result: dict, shown: dict[str, str]) -> None:
    """Task lists in the result name task ids, not pairing keys."""
    for r in (result, *(g for col in result.get("groups", {}).values() for g in col.values())):
        flips = r.get("task_flips") or {}
        for name in ("newly_passing_tasks", "newly_failing_tasks"):
            if name in flips:
                flips[name] = [shown.get(k, k) for k in flips[name]]
