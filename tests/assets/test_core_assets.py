"""Foundation assets materialized against a tiny hand-built world (local hub + SQLite registry)."""

import json

import dagster as dg
import pyarrow.parquet as pq
import pytest

from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from support.core_world import MODEL, RESOURCES, _rows, core_world
from tests.support.results import materialized


@pytest.fixture
def world(tmp_path, monkeypatch):
    return core_world(tmp_path, monkeypatch)


def test_foundation_assets_materialize(world):
    result = dg.materialize(
        [checkpoint, eval_pair, eval_traces],
        instance=world,
        partition_key=MODEL,
        resources=RESOURCES,
    )
    assert result.success
    manifest = result.output_for_node("checkpoint")
    assert manifest["has_weights"] and manifest["job_name"] == "rl-7"
    assert manifest["rl_traces_exists"] is False  # org/rl-7 does not exist: a preflight warning, not a crash
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    checks = {name: e.passed for name, e in evaluations.items()}
    assert checks["has_weights"] and checks["matched_eval_pair"]
    # no rollout dataset is by design, not a fault: passed (never red in the UI), saying it does not apply
    missing = evaluations["rl_traces_dataset_exists"]
    assert missing.passed and missing.metadata["applicable"].value is False, missing
    assert missing.description.startswith("not applicable: no RL rollout dataset published")
    pair = result.output_for_node("eval_pair")
    assert (pair["baseline_eval"], pair["post_rl_eval"]) == ("org/evals-base", "org/evals-post")
    post = result.asset_value("post_rl_traces")
    table = pq.read_table(post.path)
    assert table.num_rows == 6 and sum(table.column("passed").to_pylist()) == 5
    meta = materialized(result, "post_rl_traces")[0].metadata
    assert meta["rows"].value == 6 and meta["rows_skipped"].value == 0
    assert "tool_errors" in meta["features"].value and meta["token_source"].value.startswith("tokenizer:")
    assert world.get_latest_materialization_event(dg.AssetKey("checkpoint")) is not None


def test_unknown_model_fails_checkpoint_naming_it(world):
    result = dg.materialize(
        [checkpoint], instance=world, partition_key="org/missing-8B", resources=RESOURCES, raise_on_error=False
    )
    assert not result.success
    failures = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    assert failures and "org/missing-8B" in failures[0].event_specific_data.error.message


def test_explicit_sources_override_the_registry(world, tmp_path):
    local = tmp_path / "local_post.jsonl"
    local.write_text("\n".join(json.dumps(r) for r in _rows(4, 4)) + "\n")
    settings = AnalysisSettings(post_rl_eval=str(local), baseline_eval="org/evals-base")
    resources = {**RESOURCES, "settings": settings}
    result = dg.materialize(
        [eval_pair, eval_traces],
        selection=["eval_pair", "post_rl_traces"],
        instance=world,
        partition_key=MODEL,
        resources=resources,
    )
    pair = result.output_for_node("eval_pair")
    assert pair["post_rl_eval"] == str(local) and any("settings override" in n for n in pair["notes"])
    assert result.asset_value("post_rl_traces").rows == 4
    # a model the registry does not know still works when both sides are explicit
    world.add_dynamic_partitions("models", ["org/unregistered-8B"])
    result = dg.materialize([eval_pair], instance=world, partition_key="org/unregistered-8B", resources=resources)
    assert result.output_for_node("eval_pair")["selection"] == "explicit"


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_malformed_rl_config_fails_naming_repo_and_file(world, tmp_path, content):
    (tmp_path / "home" / "hub" / "models" / "org" / "rl-7-8B" / "rl_config.json").write_text(content)
    result = dg.materialize(
        [checkpoint], instance=world, partition_key=MODEL, resources=RESOURCES, raise_on_error=False
    )
    failure = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE][0]
    message = failure.event_specific_data.error.message
    assert MODEL in message and "rl_config.json" in message
