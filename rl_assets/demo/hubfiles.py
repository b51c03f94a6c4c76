"""Writing demo repos into the local hub: byte-stable files, fixed mtimes, parquet shards."""

from __future__ import annotations

import io
import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..fileutil import atomic_write_bytes

MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
# Column types of Harbor's exported trace rows (docs/formats.md); extra columns are strings
# unless listed here.
EXPORT_TYPES = {"conversations": pa.list_(MESSAGE), "task_index": pa.int64()}


class HubWriter:
    """Writes repos under <hub_dir>/{models,datasets}/<org>/<name>; remembers what it wrote."""

    def __init__(self, hub_dir: Path):
        self.hub_dir = Path(hub_dir)
        self.written: list[Path] = []
        self._replaced: set[Path] = set()

    def repo_dir(self, repo_id: str, repo_type: str) -> Path:
        return self.hub_dir / f"{repo_type}s" / repo_id

    def _replace_once(self, repo: Path) -> None:
        """Empty a repo the demo owns before its first file of this build, so nothing stale survives.

        Only repos the demo writes: a repo a user uploaded under the demo org (and its partition and
        registry rows) is theirs and outlives `make demo`.
        """
        if repo not in self._replaced:
            shutil.rmtree(repo, ignore_errors=True)
            self._replaced.add(repo)

    def write(self, repo_id: str, repo_type: str, rel: str, data: bytes | str, mtime: datetime) -> Path:
        self._replace_once(self.repo_dir(repo_id, repo_type))
        path = self.repo_dir(repo_id, repo_type) / rel
        atomic_write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)
        # LocalHub reports last_modified from mtimes; fixing them keeps the demo's timeline
        # (and any sensor cursor built on it) independent of when the demo was built.
        stamp = mtime.timestamp()
        os.utime(path, (stamp, stamp))
        self.written.append(path)
        return path

    def write_json(self, repo_id: str, repo_type: str, rel: str, obj, mtime: datetime) -> Path:
        return self.write(repo_id, repo_type, rel, json.dumps(obj, indent=2, sort_keys=True) + "\n", mtime)

    def write_rows(self, dataset_id: str, shards: list[list[dict]], mtime: datetime) -> list[Path]:
        """One parquet file per shard, `data/train-0000k-of-0000n.parquet`."""
        paths = []
        for k, rows in enumerate(shards):
            rel = f"data/train-{k:05d}-of-{len(shards):05d}.parquet"
            paths.append(self.write(dataset_id, "dataset", rel, parquet_bytes(rows), mtime))
        return paths


def _schema(rows: list[dict]) -> pa.Schema:
    names: list[str] = []
    for row in rows:
        names.extend(k for k in row if k not in names)
    return pa.schema([(n, EXPORT_TYPES.get(n, pa.string())) for n in names])


def parquet_bytes(rows: list[dict]) -> bytes:
    """Deterministic parquet: explicit schema, no pandas metadata, fixed writer options."""
    table = pa.Table.from_pylist(rows, schema=_schema(rows))
    sink = io.BytesIO()
    pq.write_table(
        table,
        sink,
        compression="zstd",
        compression_level=3,
        use_dictionary=True,
        write_statistics=True,
        row_group_size=4096,
        version="2.6",
    )
    return sink.getvalue()


def split_shards(rows: list[dict], n: int) -> list[list[dict]]:
    size = -(-len(rows) // n)
    return [rows[i : i + size] for i in range(0, len(rows), size)] or [[]]
