"""Where the shared real-format data lives: ``../shared`` beside the project (CI has it), or
``$RLDELTA_SHARED`` (a checkout elsewhere, e.g. a worktree). Tests that read it skip, saying
why, when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ.get("RLDELTA_SHARED") or Path(__file__).resolve().parents[2] / "shared")
