"""Normalized trace tables in the store: one source is ingested once per revision and row knobs.

Each table has a stamp beside it (`<table>.stamp.json`) with what it was built from and its ingest
report. A later request for the same Hub dataset revision, row cap, tokenizer and benchmark reuses
the table instead of reading and featurizing the source again — when an asset is re-materialized
with unchanged inputs, when `model_comparison` needs a pair a partition already ingested, or when
another worker runs the next step (tables live under the storage root: rl_assets/store.py).
A local-path source is identified by its content fingerprint (rl_assets/support/source_fingerprint.py).
`ingest_addressed` names the table after a hash of that key, so two runs with different sources
never share a table file, and the hash is the trace asset's data version.
The stamp carries the ingest's ledger (what was found, written, skipped, merged), so a reused
table reports the same accounting as the ingest that built it, and the table's sha256, size and
row count, checked before every reuse: a table that is not the file the stamp vouches for is rebuilt. Tables and stamps
are created with the process umask. A table is a location string: a local path or a URL of the store.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from rl_assets import store, store_checks

# bumped when what a stamp vouches for changes (2: the conservation ledger is part of it;
# 3: the task_key/task_key_source/gen_settings columns; 4: eval-toolkit jsonl read by their own readers,
# with the toolkit's own metrics in the ledger)
STAMP_VERSION = 4


def stamp_path(table):
    """The stamp beside `table` (same type: a Path for a Path, a string for a location)."""
    return table.with_name(table.name + ".stamp.json") if isinstance(table, Path) else f"{table}.stamp.json"


def source_key(client, spec: str, *, max_rows, tokenizer, benchmark) -> dict:
    """Everything that decides a table's rows: the Hub revision, or a local source's content fingerprint."""
    from rl_assets.ingest.formats.wandb_validation import PREFIX, parse_spec
    from rl_assets.ingest.spec import hub_dataset
    from rl_assets.support.source_fingerprint import local_fingerprint

    knobs = {"max_rows": max_rows, "tokenizer": tokenizer, "benchmark": benchmark, "stamp_version": STAMP_VERSION}
    named = hub_dataset(spec)
    if spec.strip().startswith(PREFIX):  # the round selector decides the rows, the folder the content
        folder, rounds = parse_spec(spec.strip())
        return {
            "source": f"{PREFIX}{folder.resolve()}@{rounds}",
            "fingerprint": local_fingerprint(str(folder)),
            **knobs,
        }
    if named is None and "://" in spec:  # never a local path (and its error text is masked)
        from rl_assets.ingest.report import IngestError

        raise IngestError(f"trace source {spec!r} is a URL: give the Hub dataset id (org/name) or a local path")
    if named is None:
        path = Path(spec).expanduser()
        return {"source": str(path.resolve()), "fingerprint": local_fingerprint(spec), **knobs}
    repo_id, revision = named
    return {"source": repo_id, "revision": client.dataset_info(repo_id, revision).revision, **knobs}


def key_digest(key: dict) -> str:
    """The short content address of a table: it names the file and is the asset's data version."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


def _stamped(table: str, key: dict | None) -> dict | None:
    """What the stamp beside `table` vouches for, when it is for `key` AND the table is still the file
    it was built as (size, sha256, row count): a file replaced by a valid subset or cut short is
    rebuilt, never reused (a stamp without a content address is not trusted either)."""
    if key is None or not store.exists(table):
        return None
    try:
        stamp = store.read_json(stamp_path(table))
    except (OSError, ValueError):
        return None
    if stamp.get("key") != key:
        return None
    return stamp["built"] if _content_matches(table, stamp) else None


def _content_matches(table: str, stamp: dict) -> bool:
    recorded = stamp.get("table") or {}
    digest, size = store_checks.content_digest(table)
    if (digest, size) != (recorded.get("sha256"), recorded.get("bytes")):
        return False
    try:
        return store.parquet_file(table).metadata.num_rows == stamp["built"]["rows"]
    except (OSError, ValueError, KeyError):
        return False


def _write_stamp(table: str, key: dict, built: dict) -> None:
    digest, size = store_checks.content_digest(table)
    store.write_json(stamp_path(table), {"key": key, "built": built, "table": {"sha256": digest, "bytes": size}})


def ingest_once(client, spec: str, table, *, max_rows=None, tokenizer=None, benchmark=None, side="") -> dict:
    """The table for `spec` at `table`, ingesting only if its stamp does not vouch for the same key.

    Returns the ingest facts (rows, skips, revision, token source, feature means, plain metadata),
    `path` of the table to read and `reused`.
    """
    key = source_key(client, spec, max_rows=max_rows, tokenizer=tokenizer, benchmark=benchmark)
    return _ingest_keyed(
        client, spec, str(table), key, max_rows=max_rows, tokenizer=tokenizer, benchmark=benchmark, side=side
    )


def ingest_addressed(
    client, spec: str, asset: str, model_id: str, *, max_rows=None, tokenizer=None, benchmark=None, side=""
) -> dict:
    """Like ingest_once, into `<store tables>/<asset>/<slug>/<key digest>.parquet`: one file per distinct
    source and knobs, so a run never reads (or replaces) a table another run built from different
    sources. The result also carries `data_version` (the digest)."""
    key = source_key(client, spec, max_rows=max_rows, tokenizer=tokenizer, benchmark=benchmark)
    digest = key_digest(key)
    table = str(store.trace_table_folder(asset, model_id) / f"{digest}.parquet")
    legacy = store.legacy_tables_root() / asset / Path(table).parent.name / f"{digest}.parquet"
    adopted = _adopt(legacy, table, key)
    if adopted is not None:
        return {**adopted, "path": table, "reused": True, "data_version": digest}
    built = _ingest_keyed(
        client, spec, table, key, max_rows=max_rows, tokenizer=tokenizer, benchmark=benchmark, side=side
    )
    return {**built, "data_version": digest}


def _adopt(legacy: Path, table: str, key: dict) -> dict | None:
    """A table an older rldelta built under `<home>/tables` for the same key, copied into the store
    once (so an upgrade neither re-ingests it nor hands a home path to another worker)."""
    if _stamped(table, key) is not None or not legacy.exists():
        return None
    built = _stamped(str(legacy), key)
    if built is None:
        return None
    from rl_assets.fileutil import temp_path

    staged = store.staging_file(table)
    staged.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(staged)
    shutil.copyfile(legacy, tmp)
    os.replace(tmp, staged)
    store.publish(staged, table)
    _write_stamp(table, key, built)
    return built


def _ingest_keyed(client, spec, table: str, key: dict | None, *, max_rows, tokenizer, benchmark, side) -> dict:
    from rl_assets.ingest import ingest_source

    built = _stamped(table, key)
    if built is not None:
        return {**built, "path": table, "reused": True}
    # The stamp goes before the table changes and comes back after it is complete, so a killed
    # ingest never leaves a stamp that vouches for a different table.
    store.remove(stamp_path(table))
    staged = store.staging_file(table)
    report = ingest_source(
        spec, staged, hub=client, max_rows=max_rows, benchmark=benchmark, side=side, tokenizer=tokenizer
    )
    store.publish(staged, table)
    built = {
        "rows": report.rows_written,
        "rows_read": report.rows_read,
        "skipped": dict(report.skipped),
        "source_kind": report.source_kind,
        "revision": report.source_revision,
        "token_source": report.token_source,
        "feature_summary": report.feature_summary,
        # the report names where it wrote: the local staging file when the root is an object store
        "metadata": {**report.to_metadata(), "path": table},
        "merged": dict(report.merged),
        "accounting": report.accounting,
    }
    if key is not None:
        _write_stamp(table, key, built)
    return {**built, "path": table, "reused": False}
