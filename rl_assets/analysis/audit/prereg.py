"""Pre-registered predictions: decide whether they were written before training, check which held.

A prediction only counts as pre-registered if it was written before training started. The file's
git commit time is the evidence when the file is committed (harder to fake); otherwise its mtime,
which the report flags as weak. With no known training start the report says "cannot verify" —
it never assumes. Reading the file and asking git is the reader's job
(rl_assets/ingest/formats/predictions.py); this module only judges the evidence it returns.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rl_assets.analysis.audit.labels import LABELS, NOT_COMPARED

OUTCOMES = ("gain", "no gain", "drop")


def registration(
    file: dict[str, Any], training_start: datetime | None, training_start_source: str = ""
) -> dict[str, Any]:
    """sha256, timestamps and whether the file provably predates training; ``file`` is what
    ``rl_assets.ingest.formats.predictions.file_evidence`` read."""
    mtime, committed = file["mtime_utc"], file["committed_utc"]
    if committed:
        written, evidence = committed, "git commit time"
    elif file["modified_since_commit"]:
        written, evidence = mtime, "file mtime (weak: file differs from its last commit; mtime only)"
    else:
        written, evidence = mtime, "file mtime (weak: can be touched)"
    info = {
        "path": file["path"],
        "sha256": file["sha256"],
        "mtime_utc": mtime.isoformat(),
        "committed_utc": committed.isoformat() if committed else None,
        "written_utc": written.isoformat(),
        "evidence": evidence,
        "training_start_utc": training_start.isoformat() if training_start else None,
        "training_start_source": training_start_source or None,
    }
    if training_start is None:
        info["predates_training"] = None
        info["verdict"] = "cannot verify: no training start known for this model"
    else:
        info["predates_training"] = written < training_start
        info["verdict"] = (
            f"pre-registered: written {written:%Y-%m-%d %H:%M} UTC ({evidence}), before training "
            f"started {training_start:%Y-%m-%d %H:%M} UTC"
            if info["predates_training"]
            else f"NOT pre-registered: written {written:%Y-%m-%d %H:%M} UTC ({evidence}), after "
            f"training started {training_start:%Y-%m-%d %H:%M} UTC"
        )
    return info


def prediction_held(prediction: str, row: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether one prediction held against an audit row, and why not when it cannot be judged."""
    if row.get("label") == "not enough data":
        return None, "not enough data to judge"
    if row.get("label") in NOT_COMPARED:
        return None, f"not judged: {row['label']}"
    if prediction in LABELS:
        return row["label"] == prediction, f"predicted {prediction}, audit says {row['label']}"
    gain = row.get("reward_gain") or {}
    if "lo" not in gain:
        return None, "no reward interval"
    actual = "gain" if gain["lo"] > 0 else "drop" if gain["hi"] < 0 else "no gain"
    if prediction in OUTCOMES:
        held = actual == prediction or (prediction == "no gain" and actual == "drop")
        return held, f"predicted {prediction}, reward change {gain['estimate']:+.3f} ({actual})"
    return None, f"unknown prediction {prediction!r} (use a label or one of {', '.join(OUTCOMES)})"
