"""After every per-model run ends (success or failure), rewrite that model's INDEX.md."""

import dagster as dg

from rl_assets.jobs.analyze import write_index


def _index_request(context: dg.RunStatusSensorContext):
    run = context.dagster_run
    partition = run.tags.get("dagster/partition")
    if run.job_name == write_index.name or not partition:
        return dg.SkipReason("not a per-model analysis run")
    return dg.RunRequest(run_key=f"index-after-{run.run_id}", partition_key=partition)


@dg.run_status_sensor(
    name="index_after_success",
    run_status=dg.DagsterRunStatus.SUCCESS,
    request_job=write_index,
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=15,
)
def index_after_success(context: dg.RunStatusSensorContext):
    return _index_request(context)


@dg.run_status_sensor(
    name="index_after_failure",
    run_status=dg.DagsterRunStatus.FAILURE,
    request_job=write_index,
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=15,
)
def index_after_failure(context: dg.RunStatusSensorContext):
    return _index_request(context)
