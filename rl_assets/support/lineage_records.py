"""What the latest `run_lineage` materialization of an RL job recorded: its member checkpoints and
its lineage.md. Read from the Dagster event log (never from report files) by the lineage sensor,
to rewrite the members' INDEX.md, and by the `analysis_index` asset, to link a member to its run.

It sits below the asset layer (assets and sensors both import it) and imports no layer package.
"""

import dagster as dg

from rl_assets.partitions import RL_JOBS, latest_materialization, metadata_of

LINEAGE_ASSET = "run_lineage"


def _recorded(record: dg.EventLogRecord | None) -> tuple[list[str], str | None]:
    """(member checkpoints in step order, lineage.md path) that one lineage materialization recorded."""
    meta = metadata_of(record)
    return list(getattr(meta.get("members"), "data", None) or []), getattr(meta.get("report"), "path", None)


def lineage_members(instance: dg.DagsterInstance, job: str) -> tuple[list[str], str | None]:
    """(member checkpoints in step order, lineage.md path) from the job's latest lineage materialization."""
    return _recorded(latest_materialization(instance, LINEAGE_ASSET, job))


def members_to_relink(instance: dg.DagsterInstance, job: str, run_id: str) -> tuple[list[str], str]:
    """Members whose INDEX.md link lines (rl_assets/analysis/lineage/index_links.py: job, place among the
    members, lineage.md path) change with what lineage run `run_id` recorded, and why none when none.

    Those lines are all INDEX.md takes from the lineage, so a refresh that kept the members, their order
    and the report path (e.g. after a logs-only upload) changes no INDEX.md: rewriting them would be a
    second write of the same text. A member the refresh dropped is relinked too (its link goes)."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(LINEAGE_ASSET), asset_partitions=[job]), limit=2
    ).records
    if not records or records[0].run_id != run_id:
        return [], f"run {run_id} recorded no newer lineage of {job}"
    members, report = _recorded(records[0])
    old_members, old_report = _recorded(records[1] if len(records) > 1 else None)
    if (members, report) == (old_members, old_report):
        return [], f"the lineage of {job} kept its members, their order and its report: no INDEX.md link changes"
    return members + [m for m in old_members if m not in members], ""


def lineages_of(instance: dg.DagsterInstance, model_id: str) -> list[tuple[str, list[str], str]]:
    """(job, its members, lineage.md path) of every RL job whose recorded lineage has this checkpoint."""
    out = []
    for job in instance.get_dynamic_partitions(RL_JOBS):
        members, report = lineage_members(instance, job)
        if model_id in members and report:
            out.append((job, members, report))
    return out
