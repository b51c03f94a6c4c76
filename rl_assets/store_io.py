"""Reading and writing at a location: a local path or an fsspec URL (s3://, gs://, memory://, ...).

rl_assets/store.py decides WHERE things live; this module only moves bytes and tables to and from a
location it is given, the same way for a local file and an object. Writes are whole-object: readers
see the old bytes or the new ones (a rename locally, one PUT on an object store). rl_assets.store
re-exports every public name here, so callers keep `store.read_table(...)`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rl_assets.fileutil import atomic_write_bytes

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pyarrow.parquet as pq


def remote_fs(location: str):
    """(fsspec filesystem, path) for a URL; None for a local path."""
    if "://" not in location or location.startswith("file://"):
        return None
    import fsspec

    return fsspec.core.url_to_fs(location)


def local_text(location: str) -> str:
    """A local location without its `file://` prefix."""
    return location.removeprefix("file://")


def arrow_source(location: str | os.PathLike) -> tuple[str, object]:
    """(path, pyarrow filesystem or None) for pyarrow's readers, for a local path or an fsspec URL."""
    text = str(location)
    remote = remote_fs(text)
    if remote is None:
        return local_text(text), None
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    fs, path = remote
    return path, PyFileSystem(FSSpecHandler(fs))  # type: ignore[abstract]  # the stubs list methods it does define


def exists(location: str | os.PathLike) -> bool:
    text = str(location)
    remote = remote_fs(text)
    return Path(local_text(text)).exists() if remote is None else remote[0].exists(remote[1])


def open_binary(location: str | os.PathLike):
    """A binary read stream at `location` (a local path or a URL), for reading in chunks."""
    text = str(location)
    remote = remote_fs(text)
    return open(local_text(text), "rb") if remote is None else remote[0].open(remote[1], "rb")


def read_bytes(location: str | os.PathLike) -> bytes:
    text = str(location)
    remote = remote_fs(text)
    return Path(local_text(text)).read_bytes() if remote is None else remote[0].cat_file(remote[1])


def write_bytes(location: str | os.PathLike, data: bytes) -> None:
    """Readers see the old file or the new one: a rename locally, one PUT on an object store."""
    text = str(location)
    remote = remote_fs(text)
    if remote is None:
        atomic_write_bytes(local_text(text), data)
        return
    fs, path = remote
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    fs.pipe_file(path, data)


def remove(location: str | os.PathLike) -> None:
    text = str(location)
    remote = remote_fs(text)
    if remote is None:
        Path(local_text(text)).unlink(missing_ok=True)
    elif remote[0].exists(remote[1]):
        remote[0].rm_file(remote[1])


def read_json(location: str | os.PathLike):
    return json.loads(read_bytes(location))


def write_json(location: str | os.PathLike, obj) -> None:
    write_bytes(location, (json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n").encode())


def parquet_file(location: str | os.PathLike, **kw) -> pq.ParquetFile:
    import pyarrow.parquet as pq

    path, fs = arrow_source(location)
    return pq.ParquetFile(path, filesystem=fs, **kw)


def read_table(location: str | os.PathLike, columns=None):
    import pyarrow.parquet as pq

    path, fs = arrow_source(location)
    return pq.read_table(path, columns=columns, filesystem=fs)


def write_table(table, location: str | os.PathLike) -> bytes:
    """Write `table` as parquet at `location`; returns the bytes written, so a copy elsewhere (a
    report's copy for people) needs no second encoding."""
    import io

    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(table, buf)
    write_bytes(location, buf.getvalue())
    return buf.getvalue()
