"""Atomic file writes: a killed run never leaves a half-written report or cache entry.

Files are created with the process umask (group-readable where the umask allows), not the 0600
of mkstemp: reports sit on shared volumes where the team reads them. A temp file left by a killed
writer (`.<name>.<pid>.<token>.tmp`) is removed by the next write of the same file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def atomic_write_bytes(path: Path | str, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    from rl_assets.ingest.writer import remove_stale_temps, temp_path

    remove_stale_temps(path)
    tmp = str(temp_path(path))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # 0666 & ~umask
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path: Path | str, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path | str, obj) -> Path:
    return atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")
