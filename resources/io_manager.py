"""IO manager: each asset's value as JSON under the storage root — one immutable file per run.

Paths are `<storage_root>/<asset path>/<slug>/<run id>.json`. The slug (`org--name`)
keeps a repo id with a slash from nesting folders; the run id makes every stored value
immutable, so two runs of one partition at the same time never read each other's intermediate
(a run once recorded the other run's `eval_pair` that had overwritten its own between steps).

An input is loaded from the run that produced it when that run stored it (the same run, or the
parent of a re-execution), else from the path the asset's latest materialization recorded in the
instance's event log (`stored_at`), else from `<slug>/LATEST` (readers without an instance, e.g.
sensors). The root is a UPath, so `s3://bucket/prefix` works wherever fsspec has a driver.

Values are small JSON-able dicts or typed hand-over values (rl_assets/values/handover.py: a trace table
reference, a training-log reference, ...), stored with a type tag and loaded back as their kind; values stored
before the tags load as the kind whose fields they hold. Tables (trace tables, failure-mode and step tables)
are NOT carried here: they are written in record batches while they are built, can be larger than memory, and
a trace table is shared by content address across runs and partitions (model_comparison reads the one a
partition built). rl_assets/store.py writes them under the same root (`<root>/tables/…`) and a value names the
table's location. Values that a later step reads name no place outside the storage root (no report folder, no
machine's cache): tests/services/test_scaleout_celery.py checks it.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

import dagster as dg

from rl_assets import store, store_checks
from rl_assets.partitions import latest_materialization, metadata_of, slug
from rl_assets.values.handover import KINDS, LOCATION_FIELDS, UnknownHandover, decode, encode, is_handover

# upath: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    from upath import UPath

SUFFIX = ".json"


class RlDeltaIOManager(dg.ConfigurableIOManager):
    """Writes each value as JSON under one storage root, one file per run (tables: rl_assets/store.py)."""

    # No root of its own: values, tables and the LLM cache follow one setting (RLDELTA_STORAGE via
    # the store), so a value can never land under one root while its tables land under another.
    def _base(self) -> UPath:
        return store.root()

    def _folder(self, key_path: Sequence[str], partition_key: str | None) -> UPath:
        return self._base().joinpath(*key_path) / (slug(partition_key) if partition_key else "__all__")

    def handle_output(self, context: dg.OutputContext, obj) -> None:
        if obj is None:
            return
        if type(obj).__module__.startswith(("pyarrow", "pandas")):
            raise TypeError(
                f"{context.asset_key.to_user_string()} returned a table: write it with rl_assets.store "
                "and return a dict naming its location (values are JSON)"
            )
        store_checks.check_one_process(_instance(context))
        partition = context.partition_key if context.has_partition_key else None
        folder = self._folder(context.asset_key.path, partition)
        folder.mkdir(parents=True, exist_ok=True)
        run_id = _run_id(context) or "no-run"
        path = folder / f"{run_id}{SUFFIX}"
        data = json.dumps(obj, indent=2, sort_keys=True, default=_json_default).encode()
        _write_atomic(path, lambda handle: handle.write(data))
        # only for readers without an instance; runs resolve inputs through the event log
        _write_atomic(folder / "LATEST", lambda handle: handle.write(path.name.encode()))
        context.add_output_metadata({"stored_at": dg.MetadataValue.path(str(path))})

    def load_input(self, context: dg.InputContext):
        partition = context.asset_partition_key if context.has_asset_partitions else None
        path = self._stored_path(context, partition)
        if path is None:
            raise FileNotFoundError(
                f"no stored output for asset {context.asset_key.to_user_string()}"
                + (f" partition {partition}" if partition else "")
                + f" under {self._base()}; materialize it first"
            )
        value = _locations_checked(_decoded(path), path)
        expected = _expected_type(context)
        if expected is not None and not isinstance(value, expected):
            raise TypeError(
                f"the stored value {path} of {context.asset_key.to_user_string()} is not a {_type_name(expected)} "
                f"(it holds {sorted(value) if isinstance(value, dict) else type(value).__name__}); "
                "it was written by another rldelta version: re-materialize that asset"
            )
        return value

    def _stored_path(self, context: dg.InputContext, partition: str | None) -> UPath | None:
        from upath import UPath

        folder = self._folder(context.asset_key.path, partition)
        producer = _run_id(context.upstream_output) if context.upstream_output is not None else None
        if producer:  # produced in this run (or in the parent of a re-execution)
            if (folder / f"{producer}{SUFFIX}").exists():
                return folder / f"{producer}{SUFFIX}"
        recorded = _latest_recorded(context, partition)
        if recorded is not None and recorded.exists():
            return UPath(
                store_checks.inside_root(
                    recorded, f"the latest materialization of {context.asset_key.to_user_string()}"
                )
            )
        pointer = folder / "LATEST"
        if pointer.exists():
            return UPath(store_checks.inside_root(folder / pointer.read_text().strip(), f"the pointer {pointer}"))
        return None


def _json_default(obj):
    """Hand-over values as their tagged JSON form; anything else JSON cannot hold (dates) as text."""
    return encode(obj) if is_handover(obj) else str(obj)


def _decoded(path: UPath):
    """The value stored at `path`, hand-over values as their kind; an unknown tag names the file."""
    try:
        return decode(json.loads(path.read_text()))
    except UnknownHandover as exc:
        raise UnknownHandover(f"{path}: {exc}; it was written by another rldelta version") from exc


def _expected_type(context: dg.InputContext):
    """The hand-over kind(s) the consuming asset declared for this input, or None when it takes any value."""
    try:
        expected = context.dagster_type.typing_type
    except (dg.DagsterInvariantViolationError, AttributeError):  # a context built without a type
        return None
    kinds = getattr(expected, "__args__", None) if not isinstance(expected, type) else (expected,)
    if not kinds or not all(k in KINDS.values() for k in kinds):
        return None
    return tuple(kinds)


def _type_name(kinds: tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in kinds)


def _locations_checked(value, stored_at):
    """`value`, once every table location it names lies under the storage root: an edited value file
    must not make a step read (or report) a file outside the store."""
    for key in LOCATION_FIELDS:
        location = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
        if isinstance(location, str):
            store_checks.inside_root(location, f"the stored value {stored_at} ({key})")
    return value


def _instance(context: dg.OutputContext):
    """The run's instance, or None for an output context built without one (tests, sensors)."""
    try:
        return context.step_context.instance
    except (dg.DagsterInvariantViolationError, AttributeError):
        return None


def _run_id(context: dg.OutputContext) -> str | None:
    try:
        return context.run_id
    except dg.DagsterInvariantViolationError:  # an output context built without a run
        return None


def _latest_recorded(context: dg.InputContext, partition: str | None) -> UPath | None:
    """`stored_at` of the asset's latest materialization in the instance's event log, if any."""
    from upath import UPath

    try:
        instance = context.instance
    except dg.DagsterInvariantViolationError:  # built without an instance (tests, sensors)
        return None
    stored_at = _stored_at(instance, context.asset_key, partition)
    return UPath(stored_at) if stored_at else None


def _stored_at(instance: dg.DagsterInstance, asset: str | dg.AssetKey, partition: str | None) -> str | None:
    """The `stored_at` path the asset's latest materialization of `partition` recorded, if any."""
    record = latest_materialization(instance, asset, partition)
    stored = metadata_of(record).get("stored_at")
    return stored.path if isinstance(stored, dg.PathMetadataValue) else None


def _write_atomic(path: UPath, write) -> None:
    """Write through a uniquely named temp file, then rename: readers see the old file or the new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with tmp.open("wb") as handle:
            write(handle)
        tmp.rename(path)
    finally:
        if tmp.exists():
            tmp.unlink()


def latest_value(instance: dg.DagsterInstance, asset: str, partition: str | None):
    """The value `asset`'s latest materialization of `partition` stored (its `stored_at`), or None when
    it has none or the file is unreadable — for readers that summarize finished steps (INDEX.md)."""
    stored_at = _stored_at(instance, asset, partition)
    return read_value(stored_at) if stored_at else None


def read_value(stored_at: str):
    """The JSON value stored at `stored_at` (a path or URL), or None when absent or unreadable."""
    from upath import UPath

    if not stored_at.endswith(".json"):
        return None
    try:
        return _decoded(UPath(store_checks.inside_root(stored_at, "a materialization's stored_at")))
    except (OSError, ValueError):  # UnknownHandover too: a summary reader skips what it cannot read
        return None


def load_stored(
    io_manager: dg.IOManager, asset: str, partition: str | None, instance: dg.DagsterInstance | None = None
):
    """What `asset` stored for `partition` through `io_manager`, or None when it never stored anything
    (for readers outside a run's inputs: the run lineage, sensors). With the `instance`, the value is the
    one its latest materialization recorded (`stored_at`), as for a run's inputs: a value stored under
    another root (a relative RLDELTA_STORAGE met from another directory) is then a StoreError naming both,
    never a silent None."""
    context = dg.build_input_context(asset_key=dg.AssetKey(asset), partition_key=partition, instance=instance)
    try:
        return io_manager.load_input(context)
    except FileNotFoundError:
        return None
