"""DataFrames keyed by the one pairing every analysis shares (rl_assets/analysis/pairing.py).

Q1 and Q3 group by ``task_id`` throughout; ``paired_frames`` rewrites that column to the pairing
key, so they pair exactly the tasks the audit and the comparison pair, and the returned map turns
keys back into task ids a reader recognises (``show_ids`` does it for Q1's task lists).
"""

from __future__ import annotations

import pandas as pd

from rl_assets.analysis.pairing import pair_rows

PAIRING_COLUMNS = ("task_id", "task_key", "task_key_source", "task_family", "benchmark", "gen_settings")


def paired_frames(b: pd.DataFrame, a: pd.DataFrame, normalise=()) -> tuple[dict, dict[str, str]]:
    """Rewrite both frames' ``task_id`` (in place) to the pairing key; returns the pairing report and
    key -> the task id a reader recognises."""
    pairing = pair_rows(*(_records(df) for df in (b, a)), normalise=normalise)
    b["task_id"], a["task_id"] = pairing.before.keys, pairing.after.keys
    return pairing.report, {**pairing.after.shown, **pairing.before.shown}


def _records(df: pd.DataFrame) -> list[dict]:
    """The pairing columns as row dicts (missing values None, columns a table lacks None)."""
    cols = [c for c in PAIRING_COLUMNS if c in df.columns]
    part = df[cols].astype(object)
    return [{**dict.fromkeys(PAIRING_COLUMNS), **r} for r in part.where(part.notna(), None).to_dict("records")]


def show_ids(result: dict, shown: dict[str, str]) -> None:
    """Task lists in the result name task ids, not pairing keys."""
    for r in (result, *(g for col in result.get("groups", {}).values() for g in col.values())):
        flips = r.get("task_flips") or {}
        for name in ("newly_passing_tasks", "newly_failing_tasks"):
            if name in flips:
                flips[name] = [shown.get(k, k) for k in flips[name]]
