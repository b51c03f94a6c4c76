"""The job's training-metric curves (reward, entropy, KL, response length) and the checkpoints on them.

`curves_of` is what `training_metrics` hands over (a small column dict in its stored value, so
the lineage never reads report files); `job_curves` picks, among a job's checkpoints, the curves
that reach the furthest step (a later checkpoint's logs contain the earlier steps).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

from rl_assets.values.handover import StepTableRef

METRICS = ("reward", "entropy", "kl", "response_length")


def _clean(values: Iterable[Any]) -> list[Any]:
    return [None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v for v in values]


def curves_of(steps: pd.DataFrame) -> dict[str, Any]:
    """{step: [...], step_time_utc: [ISO or None], <metric>: [...]} for the canonical metrics present."""
    import pandas as pd

    frame = steps.sort_values("step")
    out: dict[str, list[Any]] = {"step": [int(s) for s in frame["step"]]}
    if "step_time_utc" in frame:
        times = pd.to_datetime(frame["step_time_utc"], utc=True, errors="coerce")
        out["step_time_utc"] = [t.isoformat() if not pd.isna(t) else None for t in times]
    for m in METRICS:
        if m in frame:
            out[m] = _clean(pd.to_numeric(frame[m], errors="coerce").astype(float).tolist())
    return out


def job_curves(candidates: list[tuple[str, object]]) -> tuple[dict[str, Any] | None, str | None, str]:
    """(curves, source checkpoint, note) from (repo id, stored training_metrics: a StepTableRef, a
    NotApplicable or None) pairs in step order; equal reach -> the later checkpoint's."""
    tables = [(repo, tm) for repo, tm in candidates if isinstance(tm, StepTableRef)]
    usable = [(repo, tm.curves) for repo, tm in tables if tm.curves is not None and tm.curves.get("step")]
    if not usable:
        why = (
            "no checkpoint of the job has training logs with steps"
            if not tables
            else "the stored training_metrics predate curves: re-materialize training_metrics"
        )
        return None, None, why
    _, (repo, curves) = max(enumerate(usable), key=lambda iu: (max(iu[1][1]["step"]), iu[0]))
    return curves, repo, f"training logs of {repo} (steps {min(curves['step'])}–{max(curves['step'])})"


def at_checkpoints(curves: dict[str, Any] | None, steps: list[int]) -> list[dict[str, Any]]:
    """Each metric at the last logged step <= each checkpoint's step (None when none is logged)."""
    out = []
    have = curves or {}
    for step in steps:
        row: dict[str, Any] = {"step": step}
        idx = [i for i, s in enumerate(have.get("step", [])) if s <= step]
        for m in METRICS:
            values = have.get(m)
            row[m] = values[idx[-1]] if values and idx else None
        row["logged_step"] = have["step"][idx[-1]] if idx else None
        out.append(row)
    return out
