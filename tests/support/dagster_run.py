"""Materialize a few assets for one model partition on a throwaway Dagster instance, upstream
assets replaced by stubs that return given values (shared set-up of the asset tests).

Tests take these as the conftest.py fixtures `partition_instance` and
`materialize_partition`; helper modules (audit_materialize.py, llm_server.py, core_world.py) and
module-scoped fixtures or module-level helpers, which function fixtures cannot reach, import them
from here."""

from __future__ import annotations

import dagster as dg

from rl_assets.partitions import models_partitions


def stub_asset(name: str, value):
    """A models-partitioned asset called `name` that returns `value` (a stand-in upstream)."""

    @dg.asset(name=name, partitions_def=models_partitions)
    def _stub():
        return value

    return _stub


def partition_instance(*keys: str, tempdir: str | None = None) -> dg.DagsterInstance:
    """An ephemeral instance with `keys` added to the models partitions."""
    instance = dg.DagsterInstance.ephemeral(tempdir=tempdir)
    instance.add_dynamic_partitions(models_partitions.name, list(keys))
    return instance


def materialize_partition(
    assets: list,
    partition: str,
    *,
    stubs: dict | None = None,
    resources: dict | None = None,
    run_config: dict | None = None,
    instance: dg.DagsterInstance | None = None,
    **kw,
):
    """dg.materialize(stubs + assets) for one partition; `stubs` maps upstream asset name -> value."""
    return dg.materialize(
        [stub_asset(name, value) for name, value in (stubs or {}).items()] + list(assets),
        partition_key=partition,
        instance=instance or partition_instance(partition),
        resources=resources or {},
        run_config=run_config or {},
        **kw,
    )
