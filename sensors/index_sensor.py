"""After every per-model run ends (success or failure), rewrite that model's INDEX.md.

Unless the run wrote it itself: `analyze_model` ends with `analysis_index` when all went well.

Whatever launched the run: the UI, a sensor, `dagster asset materialize` on the command line or
`rldelta demo`. Runs started outside the code server carry no code-location origin, and a run
status sensor only sees its own location's runs unless told to monitor all of them.
"""

import dagster as dg

from rl_assets.jobs.analyze import write_index, wrote_index
from rl_assets.partitions import is_repo_id


def _index_request(context: dg.RunStatusSensorContext):
    run = context.dagster_run
    partition = run.tags.get("dagster/partition")
    if run.job_name == write_index.name or not is_repo_id(partition):
        return dg.SkipReason("not a per-model analysis run")  # e.g. a run_lineage run (an `rl_jobs` partition)
    if wrote_index(context.instance, run.run_id, partition):
        return dg.SkipReason("the run wrote INDEX.md as its last step")
    return dg.RunRequest(run_key=f"index-after-{run.run_id}", partition_key=partition)


def _index_sensor(name: str, status: dg.DagsterRunStatus):
    return dg.run_status_sensor(
        name=name,
        run_status=status,
        request_job=write_index,
        default_status=dg.DefaultSensorStatus.RUNNING,
        minimum_interval_seconds=5,  # INDEX.md follows a run within seconds (a tick reads the run log only)
        monitor_all_code_locations=True,  # CLI and in-process runs have no origin; they count too
        description=f"Rewrites INDEX.md after a per-model run ends with {status.value}.",
    )(_index_request)


index_after_success = _index_sensor("index_after_success", dg.DagsterRunStatus.SUCCESS)
index_after_failure = _index_sensor("index_after_failure", dg.DagsterRunStatus.FAILURE)
