"""After a model's analysis run ends, refresh `model_comparison`, so a newly analysed model is ranked.

The comparison stays on the benchmark it is pinned to: `RLDELTA_COMPARE_BENCHMARK` when set, else the
benchmark of its latest materialization (what `rldelta demo` or a person pinned in the launchpad).
Before either exists there is nothing to keep pinned, and the sensor says so instead of guessing a
per-model benchmark (which would rank models on different yardsticks).
"""

import os

import dagster as dg

from rl_assets.jobs.analyze import write_index
from rl_assets.jobs.compare import COMPARISON_ASSET, compare_models, last_pinned_benchmark
from rl_assets.partitions import is_repo_id

# What the comparison reads of a model: its eval pair and the two eval trace tables.
COMPARED_INPUTS = frozenset({"eval_pair", "baseline_traces", "post_rl_traces"})


def comparison_request(context: dg.RunStatusSensorContext):
    run, instance = context.dagster_run, context.instance
    partition = run.tags.get("dagster/partition")
    if run.job_name in (write_index.name, compare_models.name) or not is_repo_id(partition):
        return dg.SkipReason("not an analysis run of a model partition")
    touched = {
        e.dagster_event.asset_key.to_user_string()
        for e in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
        if e.dagster_event is not None and e.dagster_event.asset_key is not None  # a materialization has both
    }
    if not touched & COMPARED_INPUTS:
        return dg.SkipReason(f"run {run.run_id} changed nothing the comparison reads ({sorted(touched) or 'nothing'})")
    pinned = os.environ.get("RLDELTA_COMPARE_BENCHMARK", "") or last_pinned_benchmark(instance)
    if not pinned:
        return dg.SkipReason(
            f"{COMPARISON_ASSET} has no pinned benchmark yet: set RLDELTA_COMPARE_BENCHMARK "
            "or materialize it once with a `benchmark`"
        )
    return dg.RunRequest(
        run_key=f"compare-after-{run.run_id}", run_config={"ops": {COMPARISON_ASSET: {"config": {"benchmark": pinned}}}}
    )


def _comparison_sensor(name: str, status: dg.DagsterRunStatus):
    return dg.run_status_sensor(
        name=name,
        run_status=status,
        request_job=compare_models,
        default_status=dg.DefaultSensorStatus.RUNNING,
        minimum_interval_seconds=30,
        monitor_all_code_locations=True,  # CLI runs too (see index_sensor.py)
        description=f"Refreshes model_comparison after a model's analysis run ends with {status.value}.",
    )(comparison_request)


# A failed run may still have materialized the eval pair and traces (e.g. only the audit failed).
comparison_after_success = _comparison_sensor("comparison_after_success", dg.DagsterRunStatus.SUCCESS)
comparison_after_failure = _comparison_sensor("comparison_after_failure", dg.DagsterRunStatus.FAILURE)
