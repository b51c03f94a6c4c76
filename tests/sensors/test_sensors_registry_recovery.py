"""A checkpoint uploaded before its evals were registered fails at eval_pair; the registry sensor
re-resolves it by itself once Finished eval jobs appear — also when they appeared before the sensor
first looked at the model (its cursor then holds no "before" to compare with)."""

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq

from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.cli import main
from sensors.registry_sensor import registry_sensor

RL, BASE = "me/rl-40-8B", "me/base-8B"
RESOURCES = {"registry": RegistryResource(), "settings": AnalysisSettings()}


def _register_evals(tmp_path):
    for model, extra in ((BASE, []), (RL, ["--base-model", BASE])):
        folder = tmp_path / model.replace("/", "--")
        folder.mkdir()
        pq.write_table(pa.Table.from_pylist([{"task": "t0", "result": "1.0"}]), folder / "train.parquet")
        assert main(["register-eval", model, *extra, "--benchmark", "bench", "--traces", str(folder)]) == 0


def _tick(instance, cursor=None):
    return registry_sensor(
        dg.build_sensor_context(instance=instance, cursor=cursor, resources={"registry": RegistryResource()})
    )


def _failed_first_analysis(instance):
    first = dg.materialize([eval_pair], instance=instance, partition_key=RL, resources=RESOURCES, raise_on_error=False)
    assert not first.success  # no registry row yet
    return instance


def test_evals_registered_after_the_sensor_saw_the_model(rldelta_home, tmp_path, partition_instance):
    instance = _failed_first_analysis(partition_instance(RL))
    quiet = _tick(instance)
    assert not quiet.run_requests
    _register_evals(tmp_path)
    (request,) = _tick(instance, quiet.cursor).run_requests
    assert request.partition_key == RL
    assert dg.materialize([eval_pair], instance=instance, partition_key=RL, resources=RESOURCES).success


def test_evals_registered_before_the_sensor_first_looked(rldelta_home, tmp_path, partition_instance):
    instance = _failed_first_analysis(partition_instance(RL))
    _register_evals(tmp_path)  # within the sensor's 60 s interval, or while the daemon was down
    first = _tick(instance)
    (request,) = first.run_requests
    assert request.partition_key == RL
    again = _tick(instance, first.cursor).run_requests
    assert [r.run_key for r in again] in ([], [request.run_key])  # the same key: Dagster launches it once
    assert dg.materialize([eval_pair], instance=instance, partition_key=RL, resources=RESOURCES).success
    assert not _tick(instance, first.cursor).run_requests  # resolved: nothing more to do
