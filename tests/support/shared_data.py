"""Where the shared real-format data lives: ``../shared`` beside the project (CI has it), or
``$RLDELTA_SHARED`` (a checkout elsewhere, e.g. a worktree). Tests that read it skip, saying
why, when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ.get("RLDELTA_SHARED") or Path(__file__).resolve().parents[3] / "shared")


def needs_shared(path: Path) -> str:
    """The skip reason of a test that reads `path` inside the shared data: it says the test needs
    ../shared, and how to point at a copy elsewhere."""
    return (
        f"needs ../shared, the shared real-format data beside the project (or set RLDELTA_SHARED "
        f"to a copy): {path} not found"
    )
