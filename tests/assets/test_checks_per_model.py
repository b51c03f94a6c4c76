"""Asset checks are recorded per model partition: one model's failed check is never shown as passed
because another model's run passed it later (the checks tab used to show the latest of any model)."""

import dagster as dg
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.partitions import models_partitions

BARE, FULL = "org/bare-8B", "org/full-8B"


def _model(hub, repo_id, readme: bool):
    folder = hub / "models" / repo_id
    folder.mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(repo_id.encode())
    if readme:
        (folder / "README.md").write_text("# a model\n")


def test_a_failed_check_of_one_model_stays_failed_when_another_model_passes(rldelta_home, partition_instance):
    _model(rldelta_home / "hub", BARE, readme=False)
    _model(rldelta_home / "hub", FULL, readme=True)
    instance = partition_instance(BARE, FULL)
    resources = {
        "hub": HubResource(),
        "registry": RegistryResource(),
        "settings": AnalysisSettings(),
        "io_manager": RlDeltaIOManager(),
    }
    for model in (BARE, FULL):  # the passing model runs last, as rl-alpha did after rl-beta
        dg.materialize([checkpoint], instance=instance, partition_key=model, resources=resources)

    key = dg.AssetCheckKey(dg.AssetKey("checkpoint"), "has_readme")
    history = instance.event_log_storage.get_asset_check_execution_history(key, limit=10)
    latest = {}
    for record in history:  # newest first
        latest.setdefault(record.partition, record.status)
    assert latest == {BARE: AssetCheckExecutionRecordStatus.FAILED, FULL: AssetCheckExecutionRecordStatus.SUCCEEDED}


def test_every_check_of_a_partitioned_asset_is_partitioned_the_same_way():
    from rl_assets.definitions import defs

    for assets_def in defs.resolve_asset_graph().assets_defs:
        for spec in assets_def.check_specs:
            assert spec.partitions_def == assets_def.partitions_def, (spec.key, models_partitions)
