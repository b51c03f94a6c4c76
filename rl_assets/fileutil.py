"""Atomic file writes: a killed run never leaves a half-written report or cache entry.

Files are created with the process umask (group-readable where the umask allows), not the 0600
of mkstemp: reports sit on shared volumes where the team reads them. A temp file left by a killed
writer (`.<name>.<pid>.<token>.tmp`) is removed by the next write of the same file.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from collections.abc import Mapping
from pathlib import Path

# a temp older than this is stale when its writer cannot be checked; a live writer touches its temp every batch (well
# under a second)
STALE_AFTER_S = 3600
_HOST = socket.gethostname().replace(".", "_")


def atomic_write_bytes(path: Path | str, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
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


def temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def remove_stale_temps(path: Path) -> list[Path]:
    """Delete the temp files a killed writer of ``path`` left beside it; returns them."""
    removed = []
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        if _stale(tmp, tmp.name[len(path.name) + 2 : -len(".tmp")].split(".")):
            try:
                tmp.unlink()
                removed.append(tmp)
            except OSError:  # another process removed or renamed it first
                pass
    return removed


def _stale(tmp: Path, parts: list[str]) -> bool:
    if len(parts) == 3 and parts[0] == _HOST and parts[1].isdigit():
        return not pid_alive(int(parts[1]))
    try:
        return time.time() - tmp.stat().st_mtime > STALE_AFTER_S
    except OSError:
        return False


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def atomic_write_files(folder: Path | str, files: Mapping[str, str | bytes]) -> dict[str, Path]:
    """Write a report's rendered files (name -> text or bytes) into `folder`, each atomically, in order."""
    out = {}
    for name, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        out[name] = atomic_write_bytes(Path(folder) / name, data)
    return out


def replace_folder(folder: Path | str, files: Mapping[str, str | bytes]) -> dict[str, Path]:
    """Write a report's files into `folder` as a whole: they go into a staging copy of the folder (its
    present files hard-linked, so files of an earlier write stay), which then takes the folder's
    place. A write that fails part-way (a rendering error, a full disk) leaves the previous folder as
    it was, never half old and half new. Returns file name -> path in `folder`."""
    import shutil

    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    stage = folder.with_name(f".{folder.name}.staging-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        if folder.is_dir():  # hidden names are temp files of interrupted writers: not copied
            shutil.copytree(folder, stage, copy_function=_link_or_copy, ignore=shutil.ignore_patterns(".*"))
        staged = atomic_write_files(stage, files)
        _swap_in(stage, folder)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return {name: folder / name for name in staged}


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link (no bytes copied); a copy where the file system has no hard links."""
    try:
        os.link(src, dst)
    except OSError:
        import shutil

        shutil.copy2(src, dst)


def _swap_in(stage: Path, folder: Path) -> None:
    """Put `stage` in `folder`'s place (the old one is removed after). Another writer can swap its own
    folder in between the two renames: then ours goes in on the next try, the last writer winning."""
    import errno
    import shutil

    old = []
    for _ in range(10):
        retired = folder.with_name(f".{folder.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            os.rename(folder, retired)
            old.append(retired)
        except FileNotFoundError:
            pass
        try:
            os.rename(stage, folder)
            break
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
    else:
        raise OSError(f"could not put the new report folder {folder} in place: other writers kept replacing it")
    for path in old:
        shutil.rmtree(path, ignore_errors=True)
