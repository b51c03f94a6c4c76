"""Normalized trace tables on local disk: one source is ingested once per revision and row knobs.

Each table has a stamp beside it (`<table>.stamp.json`) with what it was built from and its ingest
report. A later request for the same Hub dataset revision, row cap, tokenizer and benchmark reuses
the table instead of reading and featurizing the source again — when an asset is re-materialized
with unchanged inputs, or when `model_comparison` needs a pair a partition already ingested.
A local-path source's revision is `local_source_fingerprint` (file list, sizes, mtimes and a
hash of sampled bytes), so an unchanged local file or folder is not ingested again either.
The stamp carries the ingest's ledger (what was found, written, skipped, merged), so a reused
table reports the same accounting as the ingest that built it. Tables and stamps are created
with the process umask.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

# bumped when what a stamp vouches for changes (2: the conservation ledger is part of it)
STAMP_VERSION = 2
SAMPLED_FILES, SAMPLE_BYTES = 64, 65536  # the first files (sorted) also get head+tail bytes hashed


def stamp_path(table: Path) -> Path:
    return table.with_name(table.name + ".stamp.json")


def local_source_fingerprint(path) -> str | None:
    """A cheap content fingerprint of a local file or folder, or None when it does not exist.

    Every (non-hidden) file's relative path, size and mtime, plus a hash of the first and last
    64 KiB of the first 64 files, so a same-size rewrite with a preserved mtime is seen in the
    files the hash samples. Reads at most 8 MiB, whatever the source's size.
    """
    root = Path(path).expanduser()
    if not root.exists():
        return None
    files = [root] if root.is_file() else []
    for d, dirs, names in os.walk(root) if root.is_dir() else ():
        dirs[:] = [x for x in dirs if not x.startswith(".")]  # hidden folders (.git, caches) are not data
        files.extend(Path(d, f) for f in names if not f.startswith("."))
    files.sort()
    digest = hashlib.sha256()
    for i, f in enumerate(files):
        st = f.stat()
        digest.update(f"{f.relative_to(root) if f != root else f.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        if i < SAMPLED_FILES:
            with open(f, "rb") as fh:
                digest.update(fh.read(SAMPLE_BYTES))
                if st.st_size > 2 * SAMPLE_BYTES:
                    fh.seek(-SAMPLE_BYTES, os.SEEK_END)
                    digest.update(fh.read(SAMPLE_BYTES))
    return f"local-{len(files)}f-{digest.hexdigest()[:20]}"


def source_key(client, spec: str, *, max_rows, tokenizer, benchmark) -> dict | None:
    """Everything that decides a table's rows, or None when it cannot be known before reading."""
    from rl_assets.ingest.spec import hub_dataset

    named = hub_dataset(spec)
    knobs = {"max_rows": max_rows, "tokenizer": tokenizer, "benchmark": benchmark, "stamp_version": STAMP_VERSION}
    if named is None:
        revision = local_source_fingerprint(spec.strip())
        return None if revision is None else {"source": str(Path(spec.strip()).expanduser().resolve()),
                                              "revision": revision, **knobs}
    repo_id, revision = named
    return {"source": repo_id, "revision": client.dataset_info(repo_id, revision).revision, **knobs}


def _stamped(table: Path, key: dict | None) -> dict | None:
    if key is None or not table.exists():
        return None
    try:
        stamp = json.loads(stamp_path(table).read_text())
    except (OSError, ValueError):
        return None
    return stamp["built"] if stamp.get("key") == key else None


def ingest_once(client, spec: str, table: Path, *, max_rows=None, tokenizer=None, benchmark=None, side="",
                reuse: tuple[Path, ...] = ()) -> dict:
    """The table for `spec` at `table` (or an identical one among `reuse`), ingesting only if needed.

    Returns the ingest facts (rows, skips, revision, token source, feature means, plain metadata),
    `path` of the table to read and `reused`.
    """
    from rl_assets.ingest import ingest_source
    from rl_assets.ingest.writer import write_json_atomic

    key = source_key(client, spec, max_rows=max_rows, tokenizer=tokenizer, benchmark=benchmark)
    for candidate in (table, *reuse):
        built = _stamped(candidate, key)
        if built is not None:
            return {**built, "path": str(candidate), "reused": True}
    # The stamp goes before the table changes and comes back after it is complete, so a killed
    # ingest never leaves a stamp that vouches for a different table.
    stamp_path(table).unlink(missing_ok=True)
    report = ingest_source(spec, table, hub=client, max_rows=max_rows, benchmark=benchmark, side=side, tokenizer=tokenizer)
    built = {
        "rows": report.rows_written, "rows_read": report.rows_read, "skipped": dict(report.skipped),
        "source_kind": report.source_kind, "revision": report.source_revision, "token_source": report.token_source,
        "feature_summary": report.feature_summary, "metadata": report.to_metadata(),
        "merged": dict(report.merged), "accounting": report.accounting,
    }
    if key is not None:
        write_json_atomic(stamp_path(table), {"key": key, "built": built})
    return {**built, "path": str(table), "reused": False}
