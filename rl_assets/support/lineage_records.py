"""What the latest `run_lineage` materialization of an RL job recorded: its member checkpoints and
its lineage.md. Read from the Dagster event log (never from report files) by the lineage sensor,
to rewrite the members' INDEX.md, and by the `analysis_index` asset, to link a member to its run.

It sits below the asset layer (assets and sensors both import it) and imports no layer package.
"""

import dagster as dg

from rl_assets.partitions import latest_materialization, rl_jobs_partitions

LINEAGE_ASSET = "run_lineage"


def lineage_members(instance: dg.DagsterInstance, job: str) -> tuple[list[str], str | None]:
    """(member checkpoints in step order, lineage.md path) from the job's latest lineage materialization."""
    latest = latest_materialization(instance, LINEAGE_ASSET, job)
    meta = latest.asset_materialization.metadata if latest else {}
    return list(getattr(meta.get("members"), "data", None) or []), getattr(meta.get("report"), "path", None)


def lineages_of(instance: dg.DagsterInstance, model_id: str) -> list[tuple[str, list[str], str]]:
    """(job, its members, lineage.md path) of every RL job whose recorded lineage has this checkpoint."""
    out = []
    for job in instance.get_dynamic_partitions(rl_jobs_partitions.name):
        members, report = lineage_members(instance, job)
        if model_id in members and report:
            out.append((job, members, report))
    return out
