"""Q2 assets on a hand-built local hub: a model with logs, and one without logs or rollouts."""

import json

import dagster as dg
import pytest

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.lineage.steps import save_every_from_config
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.q2_rl_temporal import rl_temporal, rl_traces
from rl_assets.assets.q2_training import training_logs, training_metrics
from support.dagster_run import materialize_partition

LINE = (
    '2026-06-01 1{h}:00:00.000 | INFO | x - WANDB_MIRROR kind=train step={s} metrics={{"reward/avg_raw_reward": '
    '{r}, "policy/policy_entropy": 1.0}}\n'
)


def run(tmp_path, monkeypatch, model, with_logs, summary=None):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    repo = tmp_path / "home" / "hub" / "models" / model
    repo.mkdir(parents=True)
    (repo / "model.safetensors").write_bytes(b"\0" * 8)
    (repo / "rl_config.json").write_text(
        json.dumps({"job_name": "job", "skyrl_hydra_args": ["trainer.ckpt_interval=2"]})
    )
    if with_logs:
        (repo / "training_logs").mkdir()
        (repo / "training_logs" / "job_1.out").write_text("".join(LINE.format(h=s, s=s, r=s / 10) for s in range(1, 7)))
        if summary is not None:
            (repo / "training_logs" / "wandb-summary.json").write_text(json.dumps(summary))
    result = materialize_partition(
        [checkpoint, training_logs, training_metrics, rl_traces, rl_temporal],
        model,
        resources={"hub": HubResource(), "settings": AnalysisSettings(), "io_manager": RlDeltaIOManager()},
    )
    assert result.success
    return result, tmp_path / "home" / "reports" / model.replace("/", "--")


def test_logs_become_a_versioned_snapshot_and_a_report(tmp_path, monkeypatch):
    result, reports = run(tmp_path, monkeypatch, "org/rl-x-8B", with_logs=True)
    logs = result.output_for_node("training_logs")
    assert logs.applicable and logs.save_every == 2
    mats = result.asset_materializations_for_node("training_logs")
    assert mats[0].tags["dagster/data_version"] == logs.training_logs_revision
    rep = json.loads((reports / "Q2_training_metrics" / "report.json").read_text())
    assert rep["n_steps"] == 6 and rep["best_checkpoint"]["best_step"] == 6  # 2 is the first save
    assert (reports / "Q2_training_metrics" / "reward_ema.png").stat().st_size > 1000
    assert "not applicable: no RL rollout dataset" in (reports / "Q2_rl_temporal" / "report.md").read_text()


def checks_of(result) -> dict:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def test_training_metrics_checks_show_the_ledger_and_the_wandb_cross_check(tmp_path, monkeypatch):
    result, reports = run(tmp_path, monkeypatch, "org/rl-z-8B", with_logs=True)
    checks = checks_of(result)
    assert checks["every_input_accounted_for"].passed
    assert checks["every_input_accounted_for"].description.startswith("6 lines = 6 parsed + 0 malformed + 0 ignored")
    assert checks["log_matches_wandb_summary"].passed  # honest pass: nothing to compare with
    assert checks["log_matches_wandb_summary"].description.startswith("no independent record")
    meta = result.asset_materializations_for_node("training_metrics")[0].metadata
    assert meta["lines_read"].value == 6 and meta["files_found"].value == 1


def test_a_wandb_summary_that_disagrees_fails_the_check(tmp_path, monkeypatch):
    # the log's step 6: reward 0.6, entropy 1.0; the summary says reward 0.5 (step 5's) at _step 6
    summary = {"_step": 6, "reward/avg_raw_reward": 0.5, "policy/policy_entropy": 1.0}
    result, reports = run(tmp_path, monkeypatch, "org/rl-w-8B", with_logs=True, summary=summary)
    check = checks_of(result)["log_matches_wandb_summary"]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.ERROR
    assert "1 of 2 shared keys differ" in check.description and "reward/avg_raw_reward" in check.description
    assert "step 5" in check.description
    text = (reports / "Q2_training_metrics" / "report.md").read_text()
    assert "differs: `reward/avg_raw_reward`" in text


def test_no_training_logs_is_reported_as_not_applicable(tmp_path, monkeypatch):
    result, reports = run(tmp_path, monkeypatch, "org/rl-y-8B", with_logs=False)
    assert result.output_for_node("training_metrics") == result.output_for_node("training_logs")
    assert result.output_for_node("training_logs").applicable is False
    text = (reports / "Q2_training_metrics" / "report.md").read_text()
    assert "not applicable: no training_logs/ in org/rl-y-8B" in text


@pytest.mark.parametrize(
    "config, expected",
    [
        ({"skyrl_hydra_args": ["trainer.epochs=1", "trainer.ckpt_interval=10"]}, 10),
        ({"trainer": {"ckpt_interval": 5}}, 5),
        ({"skyrl_hydra_args": ["trainer.ckpt_interval=-1"]}, None),
        (None, None),
    ],
)
def test_save_every_from_config(config, expected):
    assert save_every_from_config(config) == expected
