"""`analyze_model`: every per-model analysis asset for one model partition (what `make demo` runs)."""

import dagster as dg

from rl_assets.assets import ANALYSIS_GROUPS, REPORT_GROUP
from rl_assets.partitions import latest_materialization

# INDEX.md ("report") depends on every analysis asset, so it is this run's last step: an upload gets
# its INDEX.md without a second run. A run that fails never gets there (a Dagster asset never runs
# after a failed parent); `write_index` then writes it in its own run (sensors/index_sensor.py).
analyze_model = dg.define_asset_job(
    "analyze_model",
    selection=dg.AssetSelection.groups(*ANALYSIS_GROUPS),
    description="Every analysis asset of one model partition: preflight, Q1–Q4, audit, INDEX.md.",
    # A label for finding these runs; one run at a time per model partition comes from the instance's
    # `dagster/partition` tag limit (rl_assets/support/instance.py, dagster.yaml.example).
    tags={"rldelta/job": "analyze_model"},
)

write_index = dg.define_asset_job(
    "write_index",
    selection=dg.AssetSelection.groups(REPORT_GROUP),
    description="INDEX.md of one model: every analysis asset's status from the event log.",
)


def wrote_index(instance: dg.DagsterInstance, run_id: str, partition: str) -> bool:
    """Whether this run wrote the partition's INDEX.md itself (its latest `analysis_index` materialization)."""
    latest = latest_materialization(instance, "analysis_index", partition)
    return latest is not None and latest.run_id == run_id
