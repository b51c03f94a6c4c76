"""Rows present but not understood never end in an empty success (issue 35).

A source whose rows were found but skipped -- a jsonl of another tool's shape, every row "missing task
id" -- would otherwise publish an empty table, and every report downstream would say "no tasks" about a
source that had rows. ``require_understood`` runs after the ledger balances and before the table is
published, and raises instead, naming the file, the keys of its first row and the formats rldelta reads.
"""

from __future__ import annotations

from .report import IngestError, SkipLog

# What rldelta reads, named in the error for a source whose rows it did not understand.
FORMATS_READ = (
    "exported trace rows (task/task_id + conversations/messages + result/reward)",
    "Harbor job and trial folders / result.json",
    "ATIF trajectories",
    "reasoning-gym eval files",
    "Qwen2.5-Math evaluation jsonl (idx, question, gt, pred, score) + _metrics.json",
    "lm-evaluation-harness samples_<task>_<time>.jsonl (doc_id, doc, resps, filtered_resps) + results_<time>.json",
    "lighteval details_<suite>|<task>|<shots>_<time>.parquet",
    "Inspect logs (.eval, or .json EvalLog)",
    "W&B validation tables (wandb-val:<run folder>)",
)
# Below this share of rows understood (rows lost / rows found), a source of at least
# MIN_ROWS_FOR_SHARE rows fails instead of publishing a table of its few survivors; smaller
# sources (a hand-made file with one bad row) keep the counted skip, unless nothing was written.
MIN_UNDERSTOOD_SHARE = 0.5
MIN_ROWS_FOR_SHARE = 20


def require_understood(log: SkipLog, written: int, where: str, units: str = "rows") -> None:
    """Raise IngestError when a source had rows but (almost) none were understood: no table is
    published, so no report can say "no tasks" about a source that had rows."""
    lost = sum(n for r, n in log.counts.items() if r not in log.by_design)  # units, not files
    if not lost:
        return
    too_few = log.found >= MIN_ROWS_FOR_SHARE and lost > (1 - MIN_UNDERSTOOD_SHARE) * log.found
    if written and not too_few:
        return
    reasons = ", ".join(f"{r} x{n}" for r, n in sorted(log.counts.items(), key=lambda kv: -kv[1])[:3])
    first = next(iter(log.first_keys.items()), None)
    shape = f"; keys of the first row of {first[0]}: {first[1]}" if first else ""
    raise IngestError(
        f"{where}: {log.found} {units} found, {written} understood ({reasons}){shape}. "
        f"rldelta reads: {'; '.join(FORMATS_READ)} (docs/formats.md)"
    )
