"""IO manager: pyarrow tables as parquet, everything else as JSON, keyed by asset and model slug.

Paths are `<storage_root>/<asset path>/<slug>.{parquet,json}` — the slug (`org--name`) keeps a
repo id with a slash from nesting folders, where two models could otherwise overwrite each other.
The root is a UPath, so `s3://bucket/prefix` works wherever fsspec has a driver installed.
"""

from __future__ import annotations

import json

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
from upath import UPath

from rl_assets.partitions import slug


class RlDeltaIOManager(dg.ConfigurableIOManager):
    """Writes tables to parquet and small objects to JSON under one storage root."""

    root: str = ""  # "" -> rl_assets.settings.storage_root() at run time

    def _base(self) -> UPath:
        from rl_assets.settings import storage_root

        return UPath(self.root or storage_root())

    def _path(self, key_path: list[str], partition_key: str | None, suffix: str) -> UPath:
        name = slug(partition_key) if partition_key else "__all__"
        return self._base().joinpath(*key_path) / f"{name}{suffix}"

    def handle_output(self, context: dg.OutputContext, obj) -> None:
        if obj is None:
            return
        partition = context.partition_key if context.has_partition_key else None
        if isinstance(obj, pa.Table):
            path = self._path(context.asset_key.path, partition, ".parquet")
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            with tmp.open("wb") as handle:
                pq.write_table(obj, handle)
            tmp.rename(path)
        else:
            path = self._path(context.asset_key.path, partition, ".json")
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=str))
            tmp.rename(path)
        context.add_output_metadata({"stored_at": dg.MetadataValue.path(str(path))})

    def load_input(self, context: dg.InputContext):
        partition = context.asset_partition_key if context.has_asset_partitions else None
        for suffix in (".parquet", ".json"):
            path = self._path(context.asset_key.path, partition, suffix)
            if path.exists():
                if suffix == ".parquet":
                    with path.open("rb") as handle:
                        return pq.read_table(handle)
                return json.loads(path.read_text())
        raise FileNotFoundError(
            f"no stored output for asset {context.asset_key.to_user_string()}"
            + (f" partition {partition}" if partition else "")
            + f" under {self._base()}; materialize it first"
        )


def load_stored(io_manager: dg.IOManager, asset: str, partition: str | None):
    """What `asset` stored for `partition` through `io_manager`, or None when it never stored anything
    (for readers outside a run's inputs: the run lineage, sensors)."""
    context = dg.build_input_context(asset_key=dg.AssetKey(asset), partition_key=partition)
    try:
        return io_manager.load_input(context)
    except FileNotFoundError:
        return None
