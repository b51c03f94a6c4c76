"""`dagster dev -w workspace.yaml` on a temporary home: the asset graph, the model partitions and a
materialization are visible through the webserver's GraphQL API (what the UI shows)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from support.webserver import free_port, graphql

ROOT = Path(__file__).resolve().parents[2]
MODEL = "org/ui-check-8B"


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("RLDELTA_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    model = home / "hub" / "models" / "org" / "ui-check-8B"
    model.mkdir(parents=True)
    (model / "model.safetensors").write_bytes(b"\0" * 8)
    from rl_assets.cli import _instance
    from rl_assets.definitions import defs

    instance = _instance()
    instance.add_dynamic_partitions("models", [MODEL])
    job = defs.resolve_implicit_job_def_def_for_assets([dg.AssetKey("checkpoint")])
    assert job.execute_in_process(
        instance=instance, partition_key=MODEL, asset_selection=[dg.AssetKey("checkpoint")]
    ).success
    return home


def test_webserver_shows_graph_partitions_and_materialization(home):
    port = free_port()
    env = {**os.environ, "RLDELTA_WATCH_AUTHORS": "no-such-author"}
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "dagster"),
            "dev",
            "-w",
            "workspace.yaml",
            "-p",
            str(port),
            "-h",
            "127.0.0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline, data = time.time() + 180, None
        while time.time() < deadline:
            try:
                data = graphql(port, "{ assetNodes { assetKey { path } } }")
                if data and data["assetNodes"]:
                    break
            except Exception:
                pass
            time.sleep(2)
        assert data and data["assetNodes"], "webserver did not serve the asset graph within 180 s"
        keys = {"/".join(n["assetKey"]["path"]) for n in data["assetNodes"]}
        assert {"checkpoint", "eval_pair", "baseline_traces", "post_rl_traces"} <= keys
        node = graphql(
            port, '{ assetNodeOrError(assetKey: {path: ["checkpoint"]}) { ... on AssetNode { partitionKeys } } }'
        )
        assert MODEL in node["assetNodeOrError"]["partitionKeys"]
        mats = graphql(
            port,
            '{ assetOrError(assetKey: {path: ["checkpoint"]}) { ... on Asset { assetMaterializations(limit: 5) { '
            "partition runId } } } }",
        )
        assert MODEL in [m["partition"] for m in mats["assetOrError"]["assetMaterializations"]]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
