"""Assets end to end through the real clients: huggingface_hub -> loopback Hub, supabase-py ->
loopback PostgREST, secrets only as EnvVars — and never in logs, metadata or files.

The world (hub folder + registry rows) is tests/support/core_world.py's, as in test_core_assets.py, so
the local and the remote backends are judged on the same data.
"""

import logging

import dagster as dg
import pyarrow.parquet as pq
import pytest

from resources.hub import HubResource, LocalHub
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from support import core_world as core
from support.postgrest_server import PostgrestServer

TOKEN = "hf_secret_test_token_xyz"
KEY = "sb_secret_service_role_key_xyz"
ASSETS = [checkpoint, eval_pair, eval_traces]


@pytest.fixture
def remote(rldelta_home, hub_server, tmp_path, monkeypatch):
    """(instance, resources, hub server, PostgREST server) over the core world, secrets in env only."""
    core.write_world(rldelta_home)  # <home>/hub and <home>/registry.sqlite
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("SUPABASE_SERVICE_ROLE_KEY", KEY)
    hub_server.token = TOKEN
    (rldelta_home / "dagster").mkdir()  # the instance lives in the home folder, so the leak grep covers its logs
    instance = dg.DagsterInstance.local_temp(tempdir=str(rldelta_home / "dagster"))
    instance.add_dynamic_partitions("models", [core.MODEL, "org/missing-8B"])
    with PostgrestServer(f"sqlite:///{rldelta_home / 'registry.sqlite'}", KEY) as rest:
        resources = {
            "hub": HubResource(
                backend="hf", endpoint=hub_server.url, token=dg.EnvVar("HF_TOKEN"), timeout_s=5, max_retries=3
            ),
            "registry": RegistryResource(
                backend="supabase", supabase_url=rest.url, supabase_key=dg.EnvVar("SUPABASE_SERVICE_ROLE_KEY")
            ),
            "settings": AnalysisSettings(),
            "io_manager": RlDeltaIOManager(),
        }
        yield instance, resources, hub_server, rest
    instance.dispose()


def test_checkpoint_and_traces_through_the_real_clients(remote, rldelta_home):
    instance, resources, hub, rest = remote
    result = dg.materialize(ASSETS, instance=instance, partition_key=core.MODEL, resources=resources)
    assert result.success
    local = LocalHub(rldelta_home / "hub")
    manifest = result.output_for_node("checkpoint")
    assert manifest["revision"] == local.model_info(core.MODEL).revision and manifest["job_name"] == "rl-7"
    post = result.asset_value("post_rl_traces")
    assert post.revision == local.dataset_info("org/evals-post").revision
    table = pq.read_table(post.path)
    assert table.num_rows == 6 and sum(table.column("passed").to_pylist()) == 5
    assert any("/resolve/" in p for p in hub.paths("GET"))  # files really came over HTTP
    assert hub.requests and all(authorized for _, _, authorized in hub.requests)  # EnvVar token reached the client
    assert rest.queries("sandbox_jobs") and rest.queries("models")


def test_recovers_from_injected_500s_and_429s(remote):
    instance, resources, hub, _ = remote
    hub.inject(f"/api/models/{core.MODEL}", status=500, times=2)
    hub.inject("/api/datasets/org/evals-post", status=429, retry_after=1, times=1)
    hub.inject("/resolve/", status=502, times=1, method="GET")
    result = dg.materialize(ASSETS, instance=instance, partition_key=core.MODEL, resources=resources)
    assert result.success
    assert all(f.times == 0 for f in hub.faults)  # every fault was actually hit
    retries = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_UP_FOR_RETRY]
    assert not retries  # absorbed by the client's backoff, not by Dagster re-running the step


def test_missing_repo_fails_checkpoint_naming_it(remote):
    instance, resources, _, _ = remote
    result = dg.materialize(
        [checkpoint], instance=instance, partition_key="org/missing-8B", resources=resources, raise_on_error=False
    )
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE)
    message = failure.event_specific_data.error.message
    assert "org/missing-8B" in message and "not found" in message and "HF_TOKEN" in message


def test_write_403_is_reported_by_can_write_before_any_write(remote, rldelta_home):
    _, resources, hub, _ = remote
    (rldelta_home / "hub/datasets/org/evals-post/.readonly").touch()

    @dg.asset  # resources resolve EnvVars at run time, so ask through an asset like a write-back job would
    def write_preflight(hub: HubResource):
        return hub.client().can_write("org/evals-post")

    result = dg.materialize([write_preflight], resources={"hub": resources["hub"]})
    ok, reason = result.output_for_node("write_preflight")
    assert not ok and "403" in reason and "org/evals-post" in reason
    assert not any("preupload" in p or "/commit/" in p for p in hub.paths())


def test_no_secret_in_logs_metadata_or_files(remote, rldelta_home, capfd, caplog):
    instance, resources, hub, _ = remote
    caplog.set_level(logging.DEBUG)  # every logger, including httpx / huggingface_hub debug lines
    hub.inject(f"/api/models/{core.MODEL}", status=500, times=1)  # retry warnings get logged too
    result = dg.materialize(ASSETS, instance=instance, partition_key=core.MODEL, resources=resources)
    bad = dg.materialize(
        [checkpoint], instance=instance, partition_key="org/missing-8B", resources=resources, raise_on_error=False
    )
    assert result.success and not bad.success
    out, err = capfd.readouterr()
    texts = [out, err, caplog.text]
    for run_id in (result.run_id, bad.run_id):
        texts += [str(record) for record in instance.all_logs(run_id)]
        texts.append(str(instance.get_run_by_id(run_id).run_config))
    for key in ("checkpoint", "eval_pair", "baseline_traces", "post_rl_traces"):
        texts.append(str(instance.get_latest_materialization_event(dg.AssetKey(key)).asset_materialization.metadata))
    for secret in (TOKEN, KEY):
        assert not any(secret in t for t in texts), f"{secret[:6]}… leaked into logs/metadata"
        leaked = [p for p in rldelta_home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
        assert not leaked, f"{secret[:6]}… written to {leaked}"
