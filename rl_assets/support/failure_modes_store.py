"""Where the `failure_modes` annotation tables live: one immutable file per run, in the store.

`<storage>/tables/failure_modes/<slug>/<run id>.parquet` (rl_assets/store.py). One shared file per
partition let a second run of the same model replace the table the first run's value (and its
write-back) pointed at. Readers — the annotation resume (labels reused from the last output) and the
write-back job — take the table the asset's latest materialization recorded (its `table` metadata)
in the instance's event log, else the partition's `LATEST` pointer (no such record: e.g. a fresh
instance over an existing storage root), else the pointer an older rldelta left in `<home>/tables`.
"""

from __future__ import annotations

import dagster as dg

from rl_assets import store, store_checks
from rl_assets.partitions import latest_materialization, metadata_of, slug

ASSET = dg.AssetKey("failure_modes")


def table_path(model_id: str, run_id: str) -> str:
    """The location one run writes for one model (never written by another run)."""
    return str(store.failure_mode_folder(model_id) / f"{run_id}.parquet")


def write_table(table, location: str) -> None:
    """Store a finished table, then point `LATEST` at it (only for readers without an instance record)."""
    store.write_table(table, location)
    folder, name = location.rsplit("/", 1)
    store.write_bytes(f"{folder}/LATEST", name.encode())


def latest_table(instance: dg.DagsterInstance | None, model_id: str) -> str | None:
    """The table of the latest `failure_modes` materialization of `model_id`, or None if there is none."""
    if instance is not None:
        record = latest_materialization(instance, ASSET, model_id)
        if record is not None:
            table = metadata_of(record).get("table")
            if isinstance(table, dg.PathMetadataValue) and store.exists(table.path):
                return table.path
    for folder in (
        str(store.failure_mode_folder(model_id)),
        str(store.legacy_tables_root() / "failure_modes" / slug(model_id)),
    ):
        pointer = f"{folder}/LATEST"
        if store.exists(pointer):
            pointed = store_checks.inside_root(
                f"{folder}/{store.read_bytes(pointer).decode().strip()}", f"the pointer {pointer}"
            )
            if store.exists(pointed):
                return pointed
    return None
