"""Content fingerprint of a local trace source (a file or a folder), its data version before reading.

A Hub dataset has a commit sha; a local folder has nothing of the kind, so without this an edited
local file (12 -> 48 rows) got the same data version and every downstream asset looked fresh.
The fingerprint covers the sorted list of files (relative path), each size, and a content hash:
the whole file up to FULL_HASH_BYTES, beyond that the size, the mtime and SAMPLE_BYTES from the
start, the middle and the end (a large shard is not read in full just to be fingerprinted).
Small files therefore ignore a `touch`; a large file edited in place without changing its size,
its mtime or the sampled blocks would go unnoticed (docs/production.md states this).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

FULL_HASH_BYTES = 8 * 1024 * 1024
SAMPLE_BYTES = 64 * 1024


def file_digest(path: Path, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        if size <= FULL_HASH_BYTES:
            for block in iter(lambda: handle.read(1 << 20), b""):
                h.update(block)
            return h.hexdigest()
        h.update(f"sampled:{size}:{mtime_ns}".encode())
        for offset in (0, size // 2 - SAMPLE_BYTES // 2, size - SAMPLE_BYTES):
            handle.seek(max(0, offset))
            h.update(handle.read(SAMPLE_BYTES))
    return h.hexdigest()


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found: list[Path] = []
    for folder, dirs, names in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # temp/hidden folders are not data
        found.extend(Path(folder) / n for n in names if not n.startswith("."))
    return sorted(found)


def local_fingerprint(spec: str) -> str:
    """sha256 over (relative path, size, content digest) of every file a local spec names.

    Raises FileNotFoundError (naming the path) when it does not exist."""
    root = Path(spec).expanduser()
    if not root.exists():
        raise FileNotFoundError(f"local trace source {spec} does not exist")
    h = hashlib.sha256()
    for path in _files(root):
        rel = path.name if path == root else path.relative_to(root).as_posix()
        try:
            st = path.stat()
        except OSError:  # a dangling symlink: the ingest reports it; the listing still counts
            h.update(f"{rel}\0missing\n".encode())
            continue
        h.update(f"{rel}\0{st.st_size}\0{file_digest(path, st.st_size, st.st_mtime_ns)}\n".encode())
    return h.hexdigest()
