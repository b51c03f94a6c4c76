"""Where the `failure_modes` annotation tables live: one immutable file per run.

`<tables>/failure_modes/<slug>/<run id>.parquet`. One shared file per partition let a second run of
the same model replace the table the first run's value (and its write-back) pointed at. Readers —
the annotation resume (labels reused from the last output) and the write-back job — take the table
the asset's latest materialization recorded (its `table` metadata) in the instance's event log, else
the partition's `LATEST` pointer (no such record: e.g. a fresh instance over an existing home).
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from rl_assets.fileutil import atomic_write_text
from rl_assets.partitions import slug

ASSET = dg.AssetKey("failure_modes")


def _folder(model_id: str) -> Path:
    from rl_assets.settings import tables_dir

    return tables_dir() / "failure_modes" / slug(model_id)


def table_path(model_id: str, run_id: str) -> Path:
    """The file one run writes for one model (never written by another run)."""
    return _folder(model_id) / f"{run_id}.parquet"


def mark_latest(path: Path) -> None:
    """Point `LATEST` at a finished table (only for readers without an instance record)."""
    atomic_write_text(path.parent / "LATEST", path.name)


def latest_table(instance: dg.DagsterInstance | None, model_id: str) -> Path | None:
    """The table of the latest `failure_modes` materialization of `model_id`, or None if there is none."""
    if instance is not None:
        flt = dg.AssetRecordsFilter(asset_key=ASSET, asset_partitions=[model_id])
        for record in instance.fetch_materializations(flt, limit=1).records:
            table = record.asset_materialization.metadata.get("table")
            if isinstance(table, dg.PathMetadataValue) and Path(table.path).exists():
                return Path(table.path)
    pointer = _folder(model_id) / "LATEST"
    if pointer.exists() and (pointer.parent / pointer.read_text().strip()).exists():
        return pointer.parent / pointer.read_text().strip()
    return None
