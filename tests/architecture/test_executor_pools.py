"""Runs execute their steps in-process (no per-step start-up), and pools still cap those steps.

The pool check runs a job through `execute_job` (which honours the job's executor, unlike
`execute_in_process`) on an instance whose pools allow one slot, with the rldelta Definitions'
own executor; the step reads the pool's slots from the instance while it runs.
"""

import dagster as dg

from rl_assets.definitions import defs


@dg.asset(pool="llm")
def pool_probe(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
    info = context.instance.event_log_storage.get_concurrency_info("llm")
    return dg.MaterializeResult(metadata={"active": info.active_slot_count, "runs": sorted(info.active_run_ids)})


def probe_job() -> dg.JobDefinition:
    job = dg.define_asset_job("pool_probe_job", selection=[pool_probe])  # takes the Definitions' executor
    return dg.Definitions(assets=[pool_probe], jobs=[job], executor=defs.executor).resolve_job_def("pool_probe_job")


def test_every_job_and_automation_run_uses_the_in_process_executor():
    jobs = ["analyze_model", "write_index", "refresh_lineage"]
    executors = {name: defs.resolve_job_def(name).executor_def.name for name in jobs}
    # runs launched by sensors/automation for an asset selection use the implicit asset job
    executors["asset selection"] = defs.resolve_implicit_global_asset_job_def().executor_def.name
    assert set(executors.values()) == {"in_process"}, executors


def test_a_pool_slot_is_claimed_for_a_step_under_that_executor(tmp_path):
    overrides = {"concurrency": {"pools": {"default_limit": 1}}}
    with dg.DagsterInstance.local_temp(str(tmp_path), overrides=overrides) as instance:
        with dg.execute_job(dg.reconstructable(probe_job), instance) as result:
            assert result.success
            run_id = result.run_id
        meta = instance.get_latest_materialization_event(pool_probe.key).asset_materialization.metadata
        assert dg.reconstructable(probe_job).get_definition().executor_def.name == "in_process"
        assert (meta["active"].value, meta["runs"].value) == (1, [run_id])
        assert instance.event_log_storage.get_concurrency_info("llm").active_slot_count == 0  # released
