"""What the store checks before it trusts a setting or a file (rl_assets/store.py lays the places out).

- `inside_root`: a stored value or a LATEST pointer is data, and data never sends a read outside the
  storage root (`../../etc/passwd`, another user's folder);
- `content_digest`: what a trace table's stamp vouches for (rl_assets/support/trace_tables.py checks it before reuse);
- `check_one_process`: `memory://` is honoured only where a run's hand-overs live and end in one process.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from rl_assets import settings, store

if TYPE_CHECKING:
    from upath import UPath


def inside_root(location: str | os.PathLike | UPath, what: str) -> str:
    """`location` when it lies under the storage root (or the pre-store `<home>/tables`), else a
    StoreError naming it and `what` named it."""
    text = str(location)
    path = store.local_path(text)
    if path is not None:
        path = path.expanduser().resolve()
        local_root = store.local_path(store.root()) if store.is_local() else None
        roots = [store.legacy_tables_root().resolve()] + ([local_root.resolve()] if local_root is not None else [])
        if any(path.is_relative_to(r) for r in roots):
            return str(path)
    else:
        base = str(store.root()).rstrip("/") + "/"
        if not store.is_local() and text.startswith(base) and "/../" not in text[len(base) - 1 :]:
            return text
    raise store.StoreError(
        f"{what} names {text}, outside the storage root {store.root()}; refusing to read it "
        "(a stored file was edited or the root moved: re-materialize the asset)"
    )


def content_digest(location: str | os.PathLike) -> tuple[str, int]:
    """(sha256 hex, size in bytes) of the file at `location`, streamed."""
    digest, size = hashlib.sha256(), 0
    with store.open_binary(location) as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def check_one_process(instance) -> None:
    """`memory://` keeps hand-overs in this process's memory: honoured only for a run whose steps and
    instance live and end in this one process (an ephemeral instance, not a step subprocess), else a
    StoreError: materializations would point at data that no longer exists."""
    if store.root().protocol != "memory":
        return
    import multiprocessing

    if multiprocessing.parent_process() is not None or (instance is not None and not instance.is_ephemeral):
        raise store.StoreError(
            f"RLDELTA_STORAGE={settings.storage_root()} keeps hand-overs in one process's memory, but this run's "
            "steps or its instance outlive that process (a step subprocess, or a persistent DAGSTER_HOME instance): "
            "set RLDELTA_STORAGE to a folder or an object-store URL"
        )
