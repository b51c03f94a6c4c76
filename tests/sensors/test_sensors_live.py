"""The checkpoint sensor against a real local hub and a real Dagster instance."""

import json

import dagster as dg
import pytest

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from sensors.checkpoint_sensor import checkpoint_sensor


@pytest.fixture
def hub_root(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RLDELTA_WATCH_AUTHORS", "org")
    root = tmp_path / "home" / "hub" / "models" / "org"
    (root / "ready-8B" / "training_logs").mkdir(parents=True)
    (root / "ready-8B" / "model.safetensors").write_bytes(b"\0" * 8)
    (root / "ready-8B" / "training_logs" / "a_1.out").write_text("step 1\n")
    (root / "base-8B").mkdir(parents=True)
    (root / "base-8B" / "model.safetensors").write_bytes(b"\3" * 8)
    registry = SqlRegistry(f"sqlite:///{tmp_path / 'home' / 'registry.sqlite'}")
    registry.create_all()
    registry.insert(
        "models", [{"id": "b", "name": "org/base-8B"}, {"id": "r", "name": "org/ready-8B", "base_model_id": "b"}]
    )
    (root / "uploading-8B").mkdir(parents=True)
    (root / "uploading-8B" / "README.md").write_text("weights coming\n")
    return root


def tick(instance, cursor=None):
    ctx = dg.build_sensor_context(
        instance=instance, cursor=cursor, resources={"hub": HubResource(), "registry": RegistryResource()}
    )
    return checkpoint_sensor(ctx)


def test_sensor_adds_partitions_runs_and_ignores_logs_only_uploads(hub_root, partition_instance):
    instance = partition_instance()  # no partitions yet: the sensor adds them
    first = tick(instance)
    assert [r.partition_key for r in first.run_requests] == ["org/ready-8B"]
    assert first.dynamic_partitions_requests[0].partition_keys == ["org/ready-8B"]
    cursor = json.loads(first.cursor)
    assert cursor["org/base-8B"].endswith("|skipped")  # a base model: nothing to compare it with
    assert cursor["org/uploading-8B"].endswith("|skipped")

    # nothing changed: no work
    assert tick(instance, first.cursor).run_requests == []

    # the run happens (checkpoint materialized), then only training_logs/ changes: no new run here
    instance.add_dynamic_partitions("models", ["org/ready-8B"])
    resources = {
        "hub": HubResource(),
        "registry": RegistryResource(),
        "settings": AnalysisSettings(),
        "io_manager": RlDeltaIOManager(),
    }
    assert dg.materialize([checkpoint], instance=instance, partition_key="org/ready-8B", resources=resources).success
    (hub_root / "ready-8B" / "training_logs" / "a_2.out").write_text("step 2\n")
    assert tick(instance, first.cursor).run_requests == []

    # new weights: a run for the new checkpoint version; weights land on the uploading repo: picked up
    (hub_root / "ready-8B" / "model.safetensors").write_bytes(b"\1" * 8)
    (hub_root / "uploading-8B" / "model.safetensors").write_bytes(b"\2" * 8)
    later = tick(instance, first.cursor)
    assert sorted(r.partition_key for r in later.run_requests) == ["org/ready-8B", "org/uploading-8B"]
    assert len({r.run_key for r in later.run_requests} | {r.run_key for r in first.run_requests}) == 3
