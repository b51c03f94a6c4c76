"""A newly analysed model reaches `model_comparison` with no manual step: its analysis run ends ->
the comparison sensor requests `compare_models` on the pinned benchmark -> the new model is ranked."""

import dagster as dg
from test_compare_asset import _dataset, _job, instance, run  # noqa: F401  (fixture)

from resources.hub import HubResource
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.eval_pair import eval_pair
from sensors.comparison_sensor import comparison_after_failure, comparison_after_success

NEW = "org/fresh-8B"


def _after(sensor, inst, run_id, status="PIPELINE_SUCCESS"):
    record = inst.get_run_by_id(run_id)
    ctx = dg.build_run_status_sensor_context(
        sensor_name=sensor.name,
        dagster_instance=inst,
        dagster_run=record,
        dagster_event=dg.DagsterEvent(event_type_value=status, job_name=record.job_name),
    )
    return sensor(ctx)


def _models(inst) -> list[str]:
    (record,) = inst.fetch_materializations(dg.AssetKey("model_comparison"), limit=1).records
    return record.asset_materialization.metadata["models"].value


def test_analysing_a_new_model_refreshes_the_comparison_and_ranks_it(instance, monkeypatch):
    inst, home = instance
    monkeypatch.delenv("RLDELTA_COMPARE_BENCHMARK", raising=False)
    assert run(inst).success  # pinned once, as `rldelta demo` does
    assert NEW not in _models(inst)

    _dataset(home / "hub", "fresh-b1", [1] * 15 + [0] * 5)
    reg = SqlRegistry(f"sqlite:///{home / 'registry.sqlite'}")
    reg.insert("models", [{"id": "fresh", "name": NEW, "base_model_id": "base"}])
    reg.insert("sandbox_jobs", [_job("j9", "fresh", "b1", "fresh-b1")])
    inst.add_dynamic_partitions("models", [NEW])
    analysed = dg.materialize(
        [eval_pair],
        instance=inst,
        partition_key=NEW,
        resources={"registry": RegistryResource(), "settings": AnalysisSettings()},
    )
    assert analysed.success

    request = _after(comparison_after_success, inst, analysed.run_id)
    assert isinstance(request, dg.RunRequest), request
    assert request.run_key == f"compare-after-{analysed.run_id}"
    assert request.run_config["ops"]["model_comparison"]["config"]["benchmark"] == "b1"  # kept pinned
    from rl_assets.definitions import defs

    job = defs.resolve_job_def("compare_models")
    done = job.execute_in_process(
        instance=inst,
        run_config=request.run_config,
        resources={"hub": HubResource(), "registry": RegistryResource(), "settings": AnalysisSettings(n_boot=200)},
    )
    assert done.success
    assert NEW in _models(inst)


def test_runs_that_touch_nothing_compared_request_nothing(instance, monkeypatch):
    inst, _ = instance
    monkeypatch.delenv("RLDELTA_COMPARE_BENCHMARK", raising=False)

    @dg.asset(name="training_logs", partitions_def=eval_pair.partitions_def)
    def training_logs():
        return 1

    logs = dg.materialize([training_logs], instance=inst, partition_key="org/good-8B")
    assert isinstance(_after(comparison_after_success, inst, logs.run_id), dg.SkipReason)
    unpinned = dg.materialize(
        [eval_pair],
        instance=inst,
        partition_key="org/good-8B",
        resources={"registry": RegistryResource(), "settings": AnalysisSettings()},
    )
    # never materialized, no env: nothing to keep pinned, so it says why instead of guessing
    skip = _after(comparison_after_failure, inst, unpinned.run_id, "PIPELINE_FAILURE")
    assert isinstance(skip, dg.SkipReason) and "no pinned benchmark" in skip.skip_message


def test_the_sensors_are_on_by_default_and_watch_cli_runs_too():
    from rl_assets.definitions import defs

    for name in ("comparison_after_success", "comparison_after_failure", "index_after_success", "index_after_failure"):
        sensor = defs.resolve_sensor_def(name)
        assert sensor.default_status == dg.DefaultSensorStatus.RUNNING
        assert sensor._monitor_all_code_locations is True  # noqa: SLF001  (runs without a code-location origin)
