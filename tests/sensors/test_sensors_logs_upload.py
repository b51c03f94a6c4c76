"""A logs-only upload (a new file under training_logs/) is re-analysed in ONE run that ends with
INDEX.md: the training-logs sensor asks for exactly one run of training_logs, what depends on it and
the index; after it, automation asks for nothing more and the index sensor does not write INDEX.md
again (it used to take 7-8 runs and 3-4 rewrites). Against the demo world, a real instance and the
project's own Definitions."""

import json
import shutil

import dagster as dg
import pytest

from resources.hub import HubResource
from rl_assets.definitions import defs
from rl_assets.store import report_dir
from sensors.automation import COVERS_DOWNSTREAM
from sensors.index_sensor import _index_request
from sensors.training_logs_sensor import LOGS_RERUN, training_logs_sensor

build_world = pytest.importorskip("rl_assets.demo").build_world


@pytest.fixture
def world(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("RLDELTA_HOME", str(home))
    world = build_world(home, registry=False)
    truth = json.loads(world.ground_truth_path.read_text())
    model = sorted(truth["training_logs"])[0]
    instance = dg.DagsterInstance.ephemeral(tempdir=str(tmp_path / "dagster"))
    instance.add_dynamic_partitions("models", [model])
    return home, model, instance


def _run(instance, keys, model) -> dg.ExecuteInProcessResult:
    job = defs.resolve_implicit_global_asset_job_def().get_subset(asset_selection=set(keys))
    result = job.execute_in_process(instance=instance, partition_key=model)
    assert result.success
    return result


def _tick(instance, cursor=None):
    return training_logs_sensor(
        dg.build_sensor_context(instance=instance, cursor=cursor, resources={"hub": HubResource()})
    )


def _index_writes(instance, model) -> int:
    return len(
        instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("analysis_index"), asset_partitions=[model]), limit=100
        ).records
    )


def test_logs_only_upload_is_one_run_with_one_index_rewrite(world):
    home, model, instance = world
    graph = defs.resolve_asset_graph()
    rerun = LOGS_RERUN.resolve(graph)
    assert {k.to_user_string() for k in rerun} == {
        "training_logs",
        "training_metrics",
        "rl_temporal",
        "reward_integrity",
        "analysis_index",
    }
    # the model as analysed before the upload: the logs' inputs and the logs' whole chain
    _run(instance, [dg.AssetKey("checkpoint"), dg.AssetKey("rl_traces"), *rerun], model)
    settled = _tick(instance)
    assert settled.run_requests == []  # nothing new yet
    before = dg.evaluate_automation_conditions(defs=defs, instance=instance)

    # the upload: one more log file of the same run
    logs = home / "hub" / "models" / model / "training_logs"
    first = sorted(p for p in logs.iterdir() if p.is_file())[0]
    shutil.copy(first, logs / f"late_{first.name}")
    requested = _tick(instance, settled.cursor).run_requests
    assert [r.partition_key for r in requested] == [model], requested

    writes = _index_writes(instance, model)
    runs = instance.get_runs_count()
    sensor_job = defs.resolve_job_def(defs.resolve_sensor_def("training_logs_sensor").job_name)  # what the request runs
    result = sensor_job.execute_in_process(instance=instance, partition_key=model)
    assert result.success
    assert {e.asset_key for e in result.get_asset_materialization_events()} == rerun  # logs chain + index
    after = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=before.cursor)
    assert after.total_requested == 0, [r.key for r in after.results if r.true_subset.size]  # no follow-up run
    assert instance.get_runs_count() == runs + 1
    assert _index_writes(instance, model) == writes + 1  # INDEX.md once, at the end of that run
    context = dg.build_run_status_sensor_context(
        sensor_name="index_after_success",
        dagster_instance=instance,
        dagster_run=instance.get_run_by_id(result.run_id),
        dagster_event=result.get_run_success_event(),
    )
    assert isinstance(_index_request(context), dg.SkipReason)  # the index sensor adds no second rewrite
    rows = [
        ln
        for ln in (report_dir(model) / "INDEX.md").read_text().splitlines()
        if ln.startswith(("| **training_metrics**", "| **rl_temporal**"))
    ]
    assert len(rows) == 2 and all("✅ materialized" in r and result.run_id in r and "stale" not in r for r in rows), (
        rows
    )


@pytest.mark.parametrize("covers_downstream", [True, False])
def test_updates_of_a_run_that_covers_its_downstream_trigger_no_automation(world, covers_downstream):
    """What a tick sees of the logs run before its last events are in: training_logs and training_metrics
    updated, rl_temporal not. Dagster's own eager asked for rl_temporal then (its "the run also planned
    the child" rule never matches a sensor's job run), and a whole second run, lineage refresh and two
    INDEX.md rewrites followed under the daemon. A run tagged COVERS_DOWNSTREAM (the sensors' runs)
    triggers nothing; any other run (a command-line materialize of the logs) still refreshes what is below."""
    _, model, instance = world
    _run(
        instance,
        [dg.AssetKey("checkpoint"), dg.AssetKey("rl_traces"), *LOGS_RERUN.resolve(defs.resolve_asset_graph())],
        model,
    )
    before = dg.evaluate_automation_conditions(defs=defs, instance=instance)
    job = defs.resolve_implicit_global_asset_job_def().get_subset(
        asset_selection={dg.AssetKey("training_logs"), dg.AssetKey("training_metrics")}
    )
    tags = {COVERS_DOWNSTREAM: "true"} if covers_downstream else {}
    assert job.execute_in_process(instance=instance, partition_key=model, tags=tags).success
    after = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=before.cursor)
    requested = {r.key.to_user_string() for r in after.results if after.get_num_requested(r.key)}
    assert requested == (set() if covers_downstream else {"rl_temporal", "reward_integrity"}), requested
