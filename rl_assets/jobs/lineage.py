"""`refresh_lineage`: the run lineage of one RL job (partition of `rl_jobs`), and where it links from.

Requested by sensors/lineage_sensor.py after an analysis run of one of the job's checkpoints
ends, and by `rldelta demo --run` after the demo job's checkpoints are analysed.
"""

import os

import dagster as dg

from rl_assets.partitions import rl_jobs_partitions

LINEAGE_ASSET = "run_lineage"

refresh_lineage = dg.define_asset_job(
    "refresh_lineage",
    selection=dg.AssetSelection.assets(LINEAGE_ASSET),
    partitions_def=rl_jobs_partitions,
    description="The run lineage of one RL job: its analysed checkpoints in step order, and when each change emerged.",
)


def lineage_members(instance: dg.DagsterInstance, job: str) -> tuple[list[str], str | None]:
    """(member checkpoints in step order, lineage.md path) from the job's latest lineage materialization."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(LINEAGE_ASSET), asset_partitions=[job]), limit=1).records
    meta = records[0].asset_materialization.metadata if records else {}
    return list(getattr(meta.get("members"), "data", None) or []), getattr(meta.get("report"), "path", None)


def lineage_findings(instance: dg.DagsterInstance, model_id: str, folder) -> list[str]:
    """INDEX.md lines linking a member checkpoint to its run's lineage."""
    lines = []
    for job in instance.get_dynamic_partitions(rl_jobs_partitions.name):
        members, report = lineage_members(instance, job)
        if model_id in members and report:
            lines.append(f"Run lineage: [{job}]({os.path.relpath(report, folder)}) — checkpoint "
                         f"{members.index(model_id) + 1} of {len(members)} of the job, in training-step order")
    return lines
