"""A new checkpoint of an RL job refreshes its run lineage: partition, request after the run, INDEX links.

Real local hub, real registry, real Dagster instance; the sensors are evaluated with Dagster's
own sensor contexts.
"""

from __future__ import annotations

import json

import dagster as dg
import pytest

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from sensors.checkpoint_sensor import checkpoint_sensor
from sensors.index_sensor import index_after_success
from sensors.lineage_sensor import lineage_after_failure, lineage_after_success


@pytest.fixture
def hub_root(rldelta_home, monkeypatch):
    monkeypatch.setenv("RLDELTA_WATCH_AUTHORS", "org")
    root = rldelta_home / "hub" / "models" / "org"
    for name, config in (
        ("job-10-8B", {"job_name": "my-job"}),
        ("job-20-8B", {"job_name": "my-job"}),
        ("solo-30-8B", None),
        ("odd-5-8B", {"job_name": "bad/name"}),
    ):
        (root / name).mkdir(parents=True)
        (root / name / "model.safetensors").write_bytes(name.encode())
        if config:
            (root / name / "rl_config.json").write_text(json.dumps(config))
    registry = SqlRegistry(f"sqlite:///{rldelta_home / 'registry.sqlite'}")
    registry.create_all()
    registry.insert(
        "models",
        [{"id": "b", "name": "org/base-8B"}]
        + [
            {"id": n, "name": f"org/{n}", "base_model_id": "b"}
            for n in ("job-10-8B", "job-20-8B", "solo-30-8B", "odd-5-8B")
        ],
    )
    return root


def _resources():
    return {
        "hub": HubResource(),
        "registry": RegistryResource(),
        "settings": AnalysisSettings(),
        "io_manager": RlDeltaIOManager(),
    }


def _after(sensor, instance, run, status="PIPELINE_SUCCESS"):
    ctx = dg.build_run_status_sensor_context(
        sensor_name=sensor.name,
        dagster_instance=instance,
        dagster_run=run,
        dagster_event=dg.DagsterEvent(event_type_value=status, job_name=run.job_name),
    )
    return sensor(ctx)


def test_checkpoint_sensor_adds_the_job_partition_of_each_new_checkpoint(hub_root, partition_instance):
    instance = partition_instance()  # no partitions yet: the sensor adds them
    result = checkpoint_sensor(dg.build_sensor_context(instance=instance, resources=_resources()))
    adds = {r.partitions_def_name: r.partition_keys for r in result.dynamic_partitions_requests}
    assert sorted(adds["models"]) == ["org/job-10-8B", "org/job-20-8B", "org/odd-5-8B", "org/solo-30-8B"]
    assert sorted(adds["rl_jobs"]) == ["my-job", "solo"]  # rl_config job_name, else the -<step>-<size> name
    instance.add_dynamic_partitions("rl_jobs", ["my-job"])
    (hub_root / "job-30-8B").mkdir()
    (hub_root / "job-30-8B" / "model.safetensors").write_bytes(b"new")
    (hub_root / "job-30-8B" / "rl_config.json").write_text(json.dumps({"job_name": "my-job"}))
    later = checkpoint_sensor(dg.build_sensor_context(instance=instance, cursor=result.cursor, resources=_resources()))
    assert [r.partition_key for r in later.run_requests] == ["org/job-30-8B"]
    assert {r.partitions_def_name for r in later.dynamic_partitions_requests} == {"models"}  # my-job is known


def test_a_member_run_ending_refreshes_its_lineage_and_the_lineage_run_rewrites_member_indexes(
    hub_root, partition_instance
):
    from rl_assets.definitions import defs

    instance = partition_instance("org/job-20-8B", "org/odd-5-8B")
    done = dg.materialize([checkpoint], instance=instance, partition_key="org/job-20-8B", resources=_resources())
    run = instance.get_run_by_id(done.run_id)
    result = _after(lineage_after_success, instance, run)
    (request,) = result.run_requests
    assert (request.job_name, request.partition_key) == ("refresh_lineage", "my-job")
    assert request.run_key == f"lineage-after-{run.run_id}"
    assert result.dynamic_partitions_requests[0].partition_keys == ["my-job"]  # added if the sensor missed it
    failed = _after(lineage_after_failure, instance, run, "PIPELINE_FAILURE")
    assert failed.run_requests[0].partition_key == "my-job"  # a failed member is listed as excluded

    odd = dg.materialize([checkpoint], instance=instance, partition_key="org/odd-5-8B", resources=_resources())
    assert isinstance(_after(lineage_after_success, instance, instance.get_run_by_id(odd.run_id)), dg.SkipReason)

    lineage_run = instance.create_run_for_job(
        defs.resolve_job_def("refresh_lineage"), tags={"dagster/partition": "my-job"}
    )
    assert isinstance(_after(index_after_success, instance, lineage_run), dg.SkipReason)  # not a model partition
    instance.add_dynamic_partitions("rl_jobs", ["my-job"])
    first = _lineage_run(instance, ["org/job-20-8B"])
    requests = _after(lineage_after_success, instance, first)
    assert [(r.job_name, r.partition_key) for r in requests] == [("write_index", "org/job-20-8B")]
    # a run that recorded no lineage (it failed) changes no link
    assert isinstance(_after(lineage_after_failure, instance, lineage_run, "PIPELINE_FAILURE"), dg.SkipReason)


def _lineage_run(instance, members: list[str]) -> dg.DagsterRun:
    """A run that materializes `run_lineage` of my-job recording `members` (what the real asset's metadata holds)."""

    @dg.asset(name="run_lineage", partitions_def=dg.DynamicPartitionsDefinition(name="rl_jobs"))
    def recorded():
        return dg.MaterializeResult(
            metadata={
                "members": dg.MetadataValue.json(members),
                "report": dg.MetadataValue.path("/r/runs/my-job/lineage.md"),
            }
        )

    done = dg.materialize([recorded], instance=instance, partition_key="my-job")
    return instance.get_run_by_id(done.run_id)


def test_a_lineage_refresh_relinks_only_the_members_whose_index_lines_change(partition_instance):
    """INDEX.md takes the job, the member's place and lineage.md's path from the lineage: a refresh that
    keeps them (a logs-only upload of a member) rewrites no INDEX.md; a new member relinks every member
    (each one's "k of n" moved); a dropped member is relinked so its link goes."""
    instance = partition_instance("org/a", "org/b", "org/c")
    instance.add_dynamic_partitions("rl_jobs", ["my-job"])
    relinked = lambda run: [r.partition_key for r in _after(lineage_after_success, instance, run)]  # noqa: E731
    assert relinked(_lineage_run(instance, ["org/a", "org/b"])) == ["org/a", "org/b"]  # the first lineage
    same = _after(lineage_after_success, instance, _lineage_run(instance, ["org/a", "org/b"]))
    assert isinstance(same, dg.SkipReason) and "kept its members" in same.skip_message
    assert relinked(_lineage_run(instance, ["org/a", "org/c", "org/b"])) == ["org/a", "org/c", "org/b"]
    assert relinked(_lineage_run(instance, ["org/a", "org/c"])) == ["org/a", "org/c", "org/b"]
