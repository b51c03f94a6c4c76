"""Reader for a pre-registered predictions file: its mapping and the evidence of when it was written.

The audit's analysis (rl_assets/analysis/audit/prereg.py) decides from this evidence whether the
file predates training; reading the file, its mtime and git's record of it is source-layer work,
so it happens here (docs/contracts.md, "Layers").

File format (JSON or YAML): ``{family: prediction}`` or ``{"predictions": {family: prediction}}``;
a prediction is an audit label ("gamed", "real skill", ...), an outcome ("gain", "no gain",
"drop"), or a mapping with one of the keys ``label`` / ``prediction`` / ``outcome``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path


class PredictionsError(ValueError):
    """The predictions file cannot be read or is not a family -> prediction mapping."""


def load_predictions(path: Path | str) -> dict[str, str]:
    path = Path(path)
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
        proc = subprocess.run(["git", *args], cwd=path.parent, capture_output=True, text=True, timeout=10, check=False)
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
    return datetime.fromisoformat(when).astimezone(UTC), False


def file_evidence(path: Path | str) -> dict:
    """What the file itself says about when it was written: its sha256, mtime (UTC), the time of the
    last git commit holding exactly this content (None when uncommitted or edited since), and
    whether it differs from its last commit."""
    path = Path(path)
    committed, modified = _commit_time(path)
    return {
        "path": str(path),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "mtime_utc": datetime.fromtimestamp(path.stat().st_mtime, tz=UTC),
        "committed_utc": committed,
        "modified_since_commit": modified,
    }
