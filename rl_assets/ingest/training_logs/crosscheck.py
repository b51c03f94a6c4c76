"""The parsed table against an independent record of the same run (docs/q2.md "Cross-check").

A ``wandb-summary.json`` holds the last value W&B received for each key; ``_step`` is the step of
the final ``log`` call. A ``trainer_log.jsonl`` holds the trainer's own per-step records. Every key
of the record's final step that the table also has is compared with the table's row for THAT step
(never with an earlier row: a reward one row too high is exactly what this must catch).

Names: the console prints the policy dict without W&B's group prefix (``policy_loss`` for
``policy/policy_loss``, ``avg_raw_rewards`` for ``loss/avg_raw_rewards``), so a record key matches
the table's column of the same name, else its name without the group, else the canonical column
it is an alias of. Numbers match within 1e-6 relative, or within half the last digit the log
printed (``Generation rewards - Avg: 0.384`` for 0.384375; ``time cost: 1254.41s``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rl_assets.values.metric_aliases import ALIASES

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

SKIP_KEYS = {"_step", "_runtime", "_timestamp", "trainer/epoch"}
REL_TOL = 1e-6
MAX_LISTED = 40


def _is_step_counter(key: str) -> bool:
    return key in SKIP_KEYS or key.endswith("global_step")


def _column_for(key: str, columns) -> tuple[str | None, list[str]]:
    """(table column, the raw keys whose printed precision applies) for one record key."""
    if key in columns:
        return key, [key]
    bare = key.split("/", 1)[1] if "/" in key else None
    if bare and bare in columns:
        return bare, [bare]
    for canon, aliases in ALIASES.items():
        if key in aliases and canon in columns:
            return canon, list(aliases)
    return None, []


def _same(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(REL_TOL * max(abs(a), abs(b)), tol + 1e-12)


def compare_final_step(
    steps: pd.DataFrame, record: dict[str, float], step: int, source: str, tolerance: dict[str, float]
) -> dict:
    """{source, step, status, compared, matched, differ: [{key, column, table, record, hint}]}."""
    import pandas as pd

    out = {
        "source": source,
        "step": step,
        "compared": [],
        "matched": 0,
        "differ": [],
        "not_at_step": [],
        "status": "match",
    }
    by_step = steps.set_index("step") if "step" in steps.columns else pd.DataFrame()
    if step not in by_step.index:
        out["status"] = "step_missing"
        out["differ"].append(
            {"key": "step", "column": "step", "table": None, "record": step, "hint": f"the table has no step {step}"}
        )
        return out
    row = by_step.loc[step]
    for key in sorted(record):
        value = record[key]
        if _is_step_counter(key) or not isinstance(value, (int, float)):
            continue
        col, raw_keys = _column_for(key, by_step.columns)
        if col is None:
            continue
        table = float(row[col])
        if math.isnan(table) and not _every_other_step_has(by_step[col], step):
            # an occasional key (timing/eval) the log did not print at this step: W&B's summary
            # still holds the last step that logged it, so there is nothing at this step to compare
            out["not_at_step"].append(key)
            continue
        out["compared"].append(key)
        tol = max((tolerance.get(k, 0.0) for k in raw_keys), default=0.0)
        if _same(table, float(value), tol):
            out["matched"] += 1
            continue
        other = [int(s) for s, v in by_step[col].items() if s != step and _same(float(v), float(value), tol)]
        hint = f"the record's value is the table's at step {other[-1]}" if other else ""
        out["differ"].append(
            {
                "key": key,
                "column": col,
                "table": None if math.isnan(table) else table,
                "record": float(value),
                "hint": hint,
            }
        )
    if out["differ"]:
        out["status"] = "differ"
    elif not out["compared"]:
        out["status"] = "no_shared_keys"  # a record is there, but it shares no value with this step
    out["differ"] = out["differ"][:MAX_LISTED]
    return out


def _every_other_step_has(column: pd.Series, step: int) -> bool:
    """A key the log printed at every other step but not this one is a misplaced value (the reward
    of the last step landing one row up), not an occasional key."""
    others = column.drop(index=step)
    return len(others) > 0 and bool(others.notna().all())


def summary_step(summary: dict[str, float], steps: pd.DataFrame) -> int | None:
    """The step a W&B summary's final log call was made at: ``_step`` (W&B's own step index, which
    SkyRL sets to the global step), else ``trainer/global_step``, else none."""
    for key in ("_step", "trainer/global_step"):
        value = summary.get(key)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return int(value)
    return None


UNREADABLE = "unreadable_record"


def unreadable_record(source: str, reason: str) -> dict:
    """An independent record that is there but cannot be read (a wandb-summary.json cut short by an
    interrupted upload): a failure of the cross-check, named -- never the same as having no record."""
    return {
        "source": source,
        "status": UNREADABLE,
        "reason": reason,
        "compared": [],
        "matched": 0,
        "differ": [],
    }


def no_record(reason: str) -> dict:
    return {
        "source": None,
        "status": "no_independent_record",
        "reason": reason,
        "compared": [],
        "matched": 0,
        "differ": [],
    }
