"""The Dagster instance on PostgreSQL, built from the repo's dagster.yaml.example.

Needs RLDELTA_TEST_PG_URL (scripts/setup.d/20-postgres.sh); skips saying why otherwise.
"""

import json
import shutil
from pathlib import Path

import dagster as dg
import pytest
import yaml
from sqlalchemy.engine import make_url

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint

EXAMPLE = Path(__file__).resolve().parents[2] / "dagster.yaml.example"
MODEL = "org/rl-8B"


@pytest.fixture
def pg_instance(pg_url, rldelta_home, tmp_path, monkeypatch):
    """A DagsterInstance from dagster.yaml.example, its DAGSTER_PG_* pointed at a scratch database."""
    url = make_url(pg_url)
    for name, value in (
        ("USERNAME", url.username),
        ("PASSWORD", url.password or ""),
        ("HOST", url.host),
        ("PORT", str(url.port or 5432)),
        ("DB", url.database),
    ):
        monkeypatch.setenv(f"DAGSTER_PG_{name}", value)
    home = tmp_path / "dagster-home"
    home.mkdir()
    shutil.copy(EXAMPLE, home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    instance = dg.DagsterInstance.get()
    yield instance
    instance.dispose()


def test_example_parses_with_postgres_storage_queue_and_limits(pg_instance):
    from dagster._core.run_coordinator import QueuedRunCoordinator
    from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage, PostgresScheduleStorage

    assert isinstance(pg_instance.run_storage, PostgresRunStorage)
    assert isinstance(pg_instance.event_log_storage, PostgresEventLogStorage)
    assert isinstance(pg_instance.schedule_storage, PostgresScheduleStorage)
    assert isinstance(pg_instance.run_coordinator, QueuedRunCoordinator)
    queue = pg_instance.get_concurrency_config().run_queue_config
    assert [(lim["key"], lim["value"], lim["limit"]) for lim in queue.tag_concurrency_limits] == [
        ("dagster/partition", {"applyLimitPerUniqueValue": True}, 1)
    ]
    assert pg_instance.get_concurrency_config().pool_config.default_pool_limit == 2
    # Per-pool limits live in the event log storage (`dagster instance concurrency set hub 4`).
    pg_instance.event_log_storage.set_concurrency_slots("hub", 4)
    assert pg_instance.event_log_storage.get_concurrency_info("hub").slot_count == 4


def test_checkpoint_materializes_on_the_postgres_instance(pg_instance, rldelta_home):
    repo = rldelta_home / "hub" / "models" / MODEL
    repo.mkdir(parents=True)
    (repo / "model.safetensors").write_bytes(b"\0" * 16)
    (repo / "rl_config.json").write_text(json.dumps({"job_name": "rl"}))
    pg_instance.add_dynamic_partitions("models", [MODEL])
    resources = {"hub": HubResource(backend="local"), "settings": AnalysisSettings(), "io_manager": RlDeltaIOManager()}
    result = dg.materialize([checkpoint], instance=pg_instance, partition_key=MODEL, resources=resources)
    assert result.success
    event = pg_instance.get_latest_materialization_event(dg.AssetKey("checkpoint"))
    materialization = event.asset_materialization
    assert materialization.partition == MODEL
    assert materialization.metadata["revision"].value == result.output_for_node("checkpoint")["revision"]
    run = pg_instance.get_run_by_id(result.run_id)
    assert run.tags["dagster/partition"] == MODEL  # the tag the one-run-per-model limit keys on
    assert pg_instance.get_dynamic_partitions("models") == [MODEL]


def test_example_is_plain_yaml_with_no_literal_secrets():
    config = yaml.safe_load(EXAMPLE.read_text())
    db = config["storage"]["postgres"]["postgres_db"]
    assert all(
        isinstance(db[k], dict) and "env" in db[k] for k in ("username", "password", "hostname", "port", "db_name")
    )
