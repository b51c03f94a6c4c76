"""DataFrames keyed by the one pairing every analysis shares (rl_assets/analysis/pairing/pairs.py).

Q1 and Q3 group by ``task_id`` throughout; ``paired_frames`` rewrites that column to the pairing
key, so they pair exactly the tasks the audit and the comparison pair, and the returned map turns
keys back into task ids a reader recognises (``show_ids`` does it for Q1's task lists).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from rl_assets.analysis.pairing.pairs import pair_rows

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

PAIRING_COLUMNS = ("task_id", "task_key", "task_key_source", "task_family", "benchmark", "gen_settings")


def paired_frames(
    b: pd.DataFrame, a: pd.DataFrame, normalise: Sequence[str] = ()
) -> tuple[dict[str, Any], dict[str, str]]:
    """Rewrite both frames' ``task_id`` (in place) so equal values mean the same task by the pairing
    key; returns the pairing report and label -> task id. The label is the task id a reader knows
    (the baseline's, else the post-RL one's), so tasks keep their order and names; a key whose id is
    already taken by another key (same id, other question) gets the key appended, so it never pairs."""
    pairing = pair_rows(*(_records(df) for df in (b, a)), normalise=normalise)
    label: dict[str, str] = {}
    taken: set[str] = set()
    for key in sorted(set(pairing.before.keys) | set(pairing.after.keys)):
        name = pairing.before.shown.get(key) or pairing.after.shown[key]
        label[key] = name if name not in taken else f"{name} ({key})"
        taken.add(label[key])
    b["task_id"] = [label[k] for k in pairing.before.keys]
    a["task_id"] = [label[k] for k in pairing.after.keys]
    return pairing.report, {v: (pairing.before.shown.get(k) or pairing.after.shown[k]) for k, v in label.items()}


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The pairing columns as row dicts (missing values None, columns a table lacks None)."""
    cols = [c for c in PAIRING_COLUMNS if c in df.columns]
    part = df[cols].astype(object)
    # the column labels are the PAIRING_COLUMNS strings; pandas types record keys as Hashable
    records = cast("list[dict[str, Any]]", part.where(part.notna(), None).to_dict("records"))
    return [{**dict.fromkeys(PAIRING_COLUMNS), **r} for r in records]


def show_ids(result: dict[str, Any], shown: dict[str, str]) -> None:
    """Task lists in the result name task ids, not pairing keys."""
    for r in (result, *(g for col in result.get("groups", {}).values() for g in col.values())):
        flips = r.get("task_flips") or {}
        for name in ("newly_passing_tasks", "newly_failing_tasks"):
            if name in flips:
                flips[name] = [shown.get(k, k) for k in flips[name]]
