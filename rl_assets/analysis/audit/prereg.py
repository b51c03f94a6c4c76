"""Pre-registered predictions: load them, prove when they were written, check which ones held.

A prediction only counts as pre-registered if it was written before training started. The file's
git commit time is the evidence when the file is committed (harder to fake); otherwise its mtime,
which the report flags as weak. With no known training start the report says "cannot verify" —
it never assumes.

File format (JSON or YAML): ``{family: prediction}`` or ``{"predictions": {family: prediction}}``;
a prediction is an audit label ("gamed", "real skill", ...), an outcome ("gain", "no gain",
"drop"), or a mapping with one of the keys ``label`` / ``prediction`` / ``outcome``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from rl_assets.analysis.audit.labels import LABELS

OUTCOMES = ("gain", "no gain", "drop")


class PredictionsError(ValueError):
    """The predictions file cannot be read or is not a family -> prediction mapping."""


def load_predictions(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as exc:  # json/yaml raise different classes; both mean "unreadable"
        raise PredictionsError(f"predictions file {path} is not valid JSON/YAML: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("predictions"), dict):
        data = data["predictions"]
    if not isinstance(data, dict):
        raise PredictionsError(f"predictions file {path} must map task family -> prediction")
    out = {}
    for family, pred in data.items():
        if isinstance(pred, dict):
            pred = next((pred[k] for k in ("label", "prediction", "outcome") if k in pred), None)
        if not isinstance(pred, str):
            raise PredictionsError(f"prediction for {family!r} in {path} is not a string: {pred!r}")
        out[str(family)] = pred.strip().lower()
    return out


def _git(path: Path, *args: str) -> str:
    """stdout of a read-only git command run next to the file ("" on any failure)."""
    try:
        proc = subprocess.run(["git", *args], cwd=path.parent, capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _commit_time(path: Path) -> tuple[datetime | None, bool]:
    """(time of the last commit touching the file, whether the working-tree file differs from it).

    The commit time only proves when the content was written if the content on disk IS the
    committed content: a file edited after its last commit gets (None, True) - its mtime is the
    only evidence. Read-only git; (None, False) when the file was never committed.
    """
    line = _git(path, "log", "-1", "--format=%H %cI", "--", path.name)
    if not line:
        return None, False
    commit, when = line.split(" ", 1)
    prefix = _git(path, "rev-parse", "--show-prefix")
    committed_blob = _git(path, "rev-parse", f"{commit}:{prefix}{path.name}")
    current_blob = _git(path, "hash-object", "--", path.name)
    if not committed_blob or committed_blob != current_blob:
        return None, True
    return datetime.fromisoformat(when).astimezone(timezone.utc), False


def registration(path: Path, training_start: datetime | None, training_start_source: str = "") -> dict:
    """sha256, timestamps and whether the file provably predates training."""
    data = path.read_bytes()
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    committed, modified = _commit_time(path)
    if committed:
        written, evidence = committed, "git commit time"
    elif modified:
        written, evidence = mtime, "file mtime (weak: file differs from its last commit; mtime only)"
    else:
        written, evidence = mtime, "file mtime (weak: can be touched)"
    info = {
        "path": str(path),
        "sha256": hashlib.sha256(data).hexdigest(),
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


def prediction_held(prediction: str, row: dict) -> tuple[bool | None, str]:
    """Whether one prediction held against an audit row, and why not when it cannot be judged."""
    if row.get("label") == "not enough data":
        return None, "not enough data to judge"
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
