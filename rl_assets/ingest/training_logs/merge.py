"""Restart chains: several .out files of one run merged into one per-step table.

Rule (docs/q2.md): files are ordered by the first timestamp inside them (files with no timestamp
first, then by natural name order: rl_999.out before rl_1000.out, train.log.1 before train.log); when a step appears in
more than one file the LATER file's row wins whole, because a restarted job re-runs the step from the resumed
checkpoint and its metrics are the ones that produced the weights. Every overridden step is reported, never silently
dropped.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .files import natural_key
from .result import T_END, T_START, LogFileResult

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

MAX_LISTED = 200


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC).isoformat()


def chain_order(results: list[LogFileResult]) -> list[LogFileResult]:
    return sorted(results, key=lambda r: (r.first_ts is not None, r.first_ts or 0.0, natural_key(r.name)))


def merge_chain(results: list[LogFileResult], attr: str = "steps") -> tuple[pd.DataFrame, dict]:
    """Concatenate each file's ``attr`` store in chain order, keep the last row per step."""
    import pandas as pd

    ordered = chain_order(results)
    frames = []
    for rank, res in enumerate(ordered):
        frame = getattr(res, attr).to_frame()
        if not frame.empty:
            frames.append(frame.assign(source_file=res.name, _rank=rank))
    if not frames:
        return pd.DataFrame({"step": pd.Series(dtype="int64")}), {"count": 0, "steps": [], "files": []}
    allrows = pd.concat(frames, ignore_index=True, sort=False)
    counts = allrows.groupby("step")["_rank"].nunique()
    dup_steps = [int(s) for s in counts[counts > 1].index]
    overridden = allrows[allrows["step"].isin(dup_steps)].groupby("step")["source_file"].apply(list)
    merged = allrows.sort_values(["step", "_rank"], kind="stable").drop_duplicates("step", keep="last")
    merged = merged.drop(columns="_rank").reset_index(drop=True)
    for key, col in ((T_END, "step_time_utc"), (T_START, "step_start_utc")):
        seconds = merged.pop(key) if key in merged.columns else pd.Series(float("nan"), index=merged.index)
        merged[col] = pd.to_datetime(seconds, unit="s", utc=True)
    report = {
        "count": len(dup_steps),
        "steps": dup_steps[:MAX_LISTED],
        "steps_truncated": len(dup_steps) > MAX_LISTED,
        "winner_rule": "later file (by first timestamp) wins the whole step row",
        "examples": {int(s): files for s, files in list(overridden.items())[:20]},
        "files": [
            {
                "name": r.name,
                "first_ts_utc": _iso(r.first_ts),
                "last_ts_utc": _iso(r.last_ts),
                "n_steps": len(r.steps.row_of),
                "steps_kept": int((merged["source_file"] == r.name).sum()),
            }
            for r in ordered
        ],
    }
    return merged, report
