"""The store: every place rldelta reads or writes, in one module (moving bytes and tables to and from
a place is rl_assets/store_io.py, re-exported here).

Two kinds of places, kept apart on purpose:

- **Hand-overs** live under the storage root (`RLDELTA_STORAGE`: a path, or an fsspec URL such
  as `s3://bucket/rldelta`). Whatever one step gives another is here, so steps on different
  machines see the same bytes:

      <storage>/<asset>/<slug>/<run id>.json              values, through the IO manager
      <storage>/tables/<asset>/<slug>/<digest>.parquet    trace tables (+ .stamp.json)
      <storage>/tables/failure_modes/<slug>/<run id>.parquet   (+ LATEST)
      <storage>/tables/training_steps/<slug>/<run id>.parquet  Q2 step table
      <storage>/llm/{cache,usage}                         paid LLM answers and their ledger

- **Outputs and caches** stay per machine: report folders (`RLDELTA_REPORTS`, written for people,
  never read back as data) and local caches (Hub snapshots, staging files), which a worker refills
  on demand and never hands to another.

Tables are read and written here (not by the IO manager) because they are streamed in record
batches and can be larger than memory; the value a step hands over names the table's location.
Locations are strings: a local absolute path, or a URL that fsspec resolves.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rl_assets import settings
from rl_assets.partitions import slug

# Reading and writing at a location lives in rl_assets/store_io.py; re-exported so callers use the store alone.
from rl_assets.store_io import (  # noqa: F401
    arrow_source,
    exists,
    local_text,
    open_binary,
    parquet_file,
    read_bytes,
    read_json,
    read_table,
    remote_fs,
    remove,
    write_bytes,
    write_json,
    write_table,
)

# upath: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    from upath import UPath

TABLES = "tables"


def root() -> UPath:
    """The storage root, as RLDELTA_STORAGE names it (default `<home>/storage`). A relative path is
    resolved ONCE by the settings, against the working directory of its first read, and recorded back
    into RLDELTA_STORAGE: later calls after a chdir, and every process this one starts, use the same
    root (the store is never split by working directory). A local root inside the reports folder is
    refused: reports are outputs for people, and the store's files would be listed as reports."""
    from upath import UPath

    value = settings.storage_root()
    if remote_fs(value) is not None:
        return UPath(value)
    path = Path(local_text(value)).resolve()
    reports = settings.reports_root().resolve()
    if path.is_relative_to(reports):
        raise StoreError(
            f"RLDELTA_STORAGE={path} lies inside the reports folder {reports} (RLDELTA_REPORTS): "
            "put the storage root outside it"
        )
    return UPath(path)


def is_local() -> bool:
    return root().protocol in ("", "file", "local")


def local_path(location: str | os.PathLike | UPath) -> Path | None:
    """`location` as a local path, or None when it is a URL of an object store."""
    text = str(location)
    return Path(local_text(text)) if remote_fs(text) is None else None


# -- hand-overs ------------------------------------------------------------------------------------


def trace_table_folder(asset: str, model_id: str) -> UPath:
    """Where `asset`'s tables for one model live: one file per distinct source and knobs."""
    return root() / TABLES / asset / slug(model_id)


def failure_mode_folder(model_id: str) -> UPath:
    return root() / TABLES / "failure_modes" / slug(model_id)


def step_table(model_id: str, run_id: str) -> UPath:
    """The Q2 per-step training metrics table one run of `training_metrics` writes."""
    return root() / TABLES / "training_steps" / slug(model_id) / f"{run_id}.parquet"


def validation_generations_table(model_id: str, run_id: str) -> UPath:
    """The W&B validation generations (step, sample, input, output, score, label) one run of
    `training_metrics` found under training_logs/; `reward_integrity` reads it."""
    return root() / TABLES / "validation_generations" / slug(model_id) / f"{run_id}.parquet"


def llm_root() -> Path:
    """Paid LLM answers and their usage ledger: under the storage root so every worker reuses them.

    The cache writes files atomically (rename) and the ledger appends lines, which object stores
    cannot do: with a URL root, set RLDELTA_LLM_CACHE (or the llm resource's cache_root) to a
    folder every worker mounts."""
    override = os.environ.get("RLDELTA_LLM_CACHE", "").strip()
    if override:
        return Path(override).expanduser().resolve()
    if not is_local():
        raise StoreError(
            f"RLDELTA_STORAGE={settings.storage_root()} is not a local path, and the LLM cache needs one "
            "(atomic renames, appended ledger lines): set RLDELTA_LLM_CACHE or the llm resource's cache_root "
            "to a folder every worker shares"
        )
    return Path(str(root())) / "llm"


def legacy_llm_root() -> Path:
    """Where rldelta kept LLM answers before the store (`<cache>/llm`): still read, so none is paid twice."""
    return Path(os.environ.get("RLDELTA_CACHE", "").strip() or settings.home_dir() / "cache").expanduser() / "llm"


def legacy_tables_root() -> Path:
    """Where rldelta kept tables before the store (`<home>/tables`); old stored values still point here."""
    return settings.home_dir() / "tables"


# -- outputs and caches (never handed over) -----------------------------------------------------------


def reports_root() -> Path:
    return settings.reports_root()


def report_dir(model_id: str) -> Path:
    """The per-model report folder (INDEX.md, Q1_…, audit/ …), created. Outputs only."""
    path = reports_root() / slug(model_id)
    path.mkdir(parents=True, exist_ok=True)
    return path


def lineage_report_dir(job: str) -> Path:
    """The report folder of one RL job's run lineage (`<reports>/runs/<job>`), created. Outputs only."""
    from rl_assets.partitions import validate_job_name

    path = reports_root() / "runs" / validate_job_name(job)
    path.mkdir(parents=True, exist_ok=True)
    return path


def local_cache(name: str) -> Path:
    """A per-machine cache folder (`<cache>/<name>`): refilled on demand, never handed to another step."""
    return settings.cache_dir() / name


def staging_file(location: str | os.PathLike) -> Path:
    """Where to build a table before it is published at `location`: the place itself when the root
    is local (writers rename into it atomically), else a local file uploaded afterwards."""
    text = str(location)
    if remote_fs(text) is None:
        return Path(text)
    import hashlib

    from rl_assets.fileutil import temp_path

    # One staging file per writer: two runs publishing the same table (an analysis and
    # model_comparison) must not remove each other's file between its build and its upload.
    named = local_cache("staging") / (hashlib.sha256(text.encode()).hexdigest()[:24] + "-" + Path(text).name)
    return temp_path(named)


def publish(staged: Path, location: str | os.PathLike) -> None:
    """Move a staged file to `location` (nothing to do when it was built in place)."""
    remote = remote_fs(str(location))
    if remote is None:
        return
    fs, path = remote
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    fs.put_file(str(staged), path)  # one PUT: an object store shows the old object or the new one
    staged.unlink(missing_ok=True)


class StoreError(RuntimeError):
    """A place the store cannot use as configured (the message names the setting to change)."""
