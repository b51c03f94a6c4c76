"""trainer_state.json files a model repo carries outside training_logs/ (docs/q2.md, "Readers").

A checkpoint uploaded from the HF Trainer / TRL has its trainer_state.json in the repo root, and a
whole output_dir upload has one in every ``checkpoint-N/`` folder: training metrics the repo
carries even without a ``training_logs/`` folder.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

STATE_PATTERNS = ["trainer_state.json", "checkpoint-*/trainer_state.json"]  # hub allow patterns
_STATE_PATH = re.compile(r"(?:checkpoint-\d+/)?trainer_state\.json")


def is_repo_trainer_state(path: str) -> bool:
    """A repo path that holds a Trainer state: the root one or a checkpoint-N/ one."""
    return bool(_STATE_PATH.fullmatch(path))


def repo_trainer_states(snapshot: Path | str) -> list[Path]:
    """Those files in a downloaded repo snapshot."""
    snapshot = Path(snapshot)
    return sorted(
        p
        for p in [snapshot / "trainer_state.json", *snapshot.glob("checkpoint-*/trainer_state.json")]
        if p.is_file() and is_repo_trainer_state(str(p.relative_to(snapshot)))
    )


def logs_revision(training_logs_revision: str | None, states: list[tuple[str, str]]) -> str:
    """One data version for training_logs/ plus the repo's trainer states ((path, content hash)
    pairs); training_logs/'s own revision when there are none, so SkyRL repos keep theirs."""
    if not states:
        return training_logs_revision or ""
    text = "\n".join([training_logs_revision or "-", *(f"{p}:{sha}" for p, sha in sorted(states))])
    return hashlib.sha256(text.encode()).hexdigest()[:40]
