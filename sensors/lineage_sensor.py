"""Run lineage sensors: a checkpoint of an RL job appears -> its `rl_jobs` partition; its analysis
ends -> the lineage refreshes; the lineage's members change -> their INDEX.md link to it anew.

The lineage is requested after a member's run ENDS (not when the checkpoint appears), so it
never reads a half-analysed checkpoint; a failed run refreshes it too, which then lists the
checkpoint as excluded with the reason. The job name is the one the `checkpoint` asset stored.
"""

import json
from typing import Any

import dagster as dg
import yaml

from resources.io_manager import RlDeltaIOManager, load_stored
from rl_assets.jobs.analyze import write_index
from rl_assets.jobs.lineage import refresh_lineage
from rl_assets.partitions import RL_JOBS, InvalidRepoId, is_repo_id, rl_jobs_partitions, validate_job_name
from rl_assets.support.lineage_records import members_to_relink

CONFIGS = (("rl_config.json", json.loads), ("rl_config.yaml", yaml.safe_load), ("rl_config.yml", yaml.safe_load))


def job_name_of(client, info) -> str | None:
    """The job a new checkpoint belongs to, by the checkpoint asset's rule (rl_config, else the name)."""
    from resources.hub.manifest import find_job_name

    present = [(name, parse) for name, parse in CONFIGS if info.has(name)]
    configs = {}
    if present:
        folder = client.download(info.repo_id, "model", allow_patterns=[n for n, _ in present], revision=info.revision)
        for name, parse in present:
            try:
                configs[name] = parse((folder / name).read_text(errors="replace"))
            except (ValueError, yaml.YAMLError):
                continue  # the checkpoint asset fails on it with the file named; here: the name rule
    as_dict = lambda v: v if isinstance(v, dict) else None  # noqa: E731
    yaml_config = as_dict(configs.get("rl_config.yaml")) or as_dict(configs.get("rl_config.yml"))
    job, _ = find_job_name(info.repo_id, as_dict(configs.get("rl_config.json")), yaml_config)
    return job


def new_job_partitions(instance: dg.DagsterInstance, client, infos: dict, repos: list[str], log) -> list[str]:
    """`rl_jobs` partitions to add for the checkpoints the checkpoint sensor is about to analyse."""
    known, new = set(instance.get_dynamic_partitions(RL_JOBS)), []
    for repo in repos:
        try:
            info = infos.get(repo) or client.model_info(repo)
            job = validate_job_name(job_name_of(client, info) or "")
        except InvalidRepoId as exc:
            log.info(f"{repo}: no run lineage ({exc})")
            continue
        except Exception as exc:  # a hub hiccup: the lineage sensor adds the partition after the run
            log.info(f"{repo}: job name not read this tick ({type(exc).__name__}: {exc})")
            continue
        if job not in known and job not in new:
            new.append(job)
    return new


def lineage_reaction(context: dg.RunStatusSensorContext):
    """After a model's run: refresh its job's lineage. After a lineage run: rewrite the INDEX.md of the
    members whose link to the lineage changed (rl_assets/support/lineage_records.py, members_to_relink)."""
    run, instance = context.dagster_run, context.instance
    partition = run.tags.get("dagster/partition")
    if partition and not is_repo_id(partition) and instance.has_dynamic_partition(RL_JOBS, partition):
        members, unchanged = members_to_relink(instance, partition, run.run_id)
        return [
            dg.RunRequest(run_key=f"index-after-lineage-{run.run_id}-{m}", partition_key=m, job_name=write_index.name)
            for m in members
        ] or dg.SkipReason(unchanged or f"lineage {partition} has no members yet")
    if run.job_name == write_index.name or not is_repo_id(partition):
        return dg.SkipReason("not an analysis run of a model partition")
    manifest = load_stored(RlDeltaIOManager(), "checkpoint", partition, instance) or {}
    try:
        job = validate_job_name(manifest.get("job_name") or "")
    except InvalidRepoId:
        return dg.SkipReason(f"{partition}: no usable job_name in its stored checkpoint manifest")
    add = [] if instance.has_dynamic_partition(RL_JOBS, job) else [rl_jobs_partitions.build_add_request([job])]
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(run_key=f"lineage-after-{run.run_id}", partition_key=job, job_name=refresh_lineage.name)
        ],
        dynamic_partitions_requests=add,
    )


_COMMON: dict[str, Any] = {
    "request_jobs": [refresh_lineage, write_index],
    "default_status": dg.DefaultSensorStatus.RUNNING,
    "minimum_interval_seconds": 15,
    "monitor_all_code_locations": True,
}  # CLI runs too (index_sensor.py)
lineage_after_success = dg.run_status_sensor(
    name="lineage_after_success",
    run_status=dg.DagsterRunStatus.SUCCESS,
    **_COMMON,
    description="Refreshes the run lineage of a checkpoint's RL job after its analysis run succeeds "
    "(and, after a lineage run, its members' INDEX.md).",
)(lineage_reaction)
lineage_after_failure = dg.run_status_sensor(
    name="lineage_after_failure",
    run_status=dg.DagsterRunStatus.FAILURE,
    **_COMMON,
    description=(
        "Refreshes the run lineage after a checkpoint's analysis run fails (it lists the checkpoint as excluded)."
    ),
)(lineage_reaction)
