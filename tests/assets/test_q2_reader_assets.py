"""training_metrics on a local hub: a verl run is read and named, unreadable logs fail loudly."""

import json

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.q2_training import training_logs, training_metrics
from support.dagster_run import materialize_partition


def run(tmp_path, monkeypatch, model, logs: dict[str, str], root: dict[str, str] | None = None):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    repo = tmp_path / "home" / "hub" / "models" / model
    repo.mkdir(parents=True)
    for name, text in (root or {}).items():  # files in the repo itself, outside training_logs/
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / "model.safetensors").write_bytes(b"\0" * 8)
    (repo / "rl_config.json").write_text(json.dumps({"job_name": "job"}))
    for name, text in logs.items():
        (repo / "training_logs" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / "training_logs" / name).write_text(text)
    result = materialize_partition(
        [checkpoint, training_logs, training_metrics],
        model,
        raise_on_error=False,
        resources={"hub": HubResource(), "settings": AnalysisSettings(), "io_manager": RlDeltaIOManager()},
    )
    return result, tmp_path / "home" / "reports" / model.replace("/", "--") / "Q2_training_metrics"


def test_unrecognised_logs_fail_the_asset_and_the_check(tmp_path, monkeypatch):
    result, reports = run(
        tmp_path,
        monkeypatch,
        "org/garbage-8B",
        {"run.log": "\x07\x08 garbage ###\nmore garbage\n", "metrics.csv": "a,b\n1,2\n"},
    )
    assert not result.success
    failure = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert "no reader recognises these files" in failure[0].step_failure_data.user_failure_data.description
    check = {e.check_name: e for e in result.get_asset_check_evaluations()}["every_input_accounted_for"]
    assert not check.passed and "- run.log: '\\x07\\x08 garbage ###' | 'more garbage'" in check.description
    assert "- metrics.csv: 'a,b' | '1,2'" in check.description
    assert "Error: no reader could read the training logs" in (reports / "report.md").read_text()


def test_verl_run_is_read_and_the_report_names_the_trainer(tmp_path, monkeypatch):
    lines = "".join(
        f"(TaskRunner pid=1) step:{s} - critic/score/mean:np.float64({-s / 10}) - critic/rewards/mean:{s / 10}"
        f" - actor/entropy:0.5 - response_length/mean:{200 - s}\n"
        for s in range(1, 7)
    )
    lines += "step:7 - critic/score/mean:-0.7 - critic/rewards/me\n"  # cut inside its last key
    result, reports = run(tmp_path, monkeypatch, "org/verl-8B", {"wandb/run-1/files/output.log": lines})
    assert result.success
    value = result.output_for_node("training_metrics")
    assert value.trainer == "verl" and value.n_steps == 7
    text = (reports / "report.md").read_text()
    assert "Trainer: **verl**" in text and "1 key:value pair(s) dropped from otherwise parsed lines" in text
    rep = json.loads((reports / "report.json").read_text())
    assert rep["final"]["reward"] == 0.6 and rep["trainer"] == "verl"  # step 7's reward was cut: 6's is the last


def test_trl_checkpoint_upload_without_training_logs_is_read(tmp_path, monkeypatch):
    def state(n):
        return json.dumps(
            {
                "global_step": n,
                "best_model_checkpoint": f"out/checkpoint-{n}",
                "log_history": [
                    {"step": s, "reward": s / 10, "rewards/accuracy_reward/mean": s / 20, "kl": 0.01}
                    for s in range(1, n + 1)
                ],
            }
        )

    result, reports = run(
        tmp_path,
        monkeypatch,
        "org/trl-8B",
        {},
        root={
            "trainer_state.json": state(4),
            "checkpoint-2/trainer_state.json": state(2),
            "checkpoint-4/trainer_state.json": state(4),
        },
    )
    assert result.success
    logs = result.output_for_node("training_logs")
    assert logs.applicable and sorted(logs.files) == [
        "checkpoint-2/trainer_state.json",
        "checkpoint-4/trainer_state.json",
        "trainer_state.json",
    ]
    value = result.output_for_node("training_metrics")
    assert value.trainer == "trl" and value.n_steps == 4
    assert value.reward_terms == {"reward_term/task/accuracy_reward": "task"}
    rep = json.loads((reports / "report.json").read_text())
    assert rep["final"]["reward"] == 0.4
    # 4 + 2 + 4 entries read; the 4 newest kept; the 6 repeated in an older or equal file are accounted
    assert rep["accounting"]["lines"]["read"] == 10 and rep["accounting"]["lines"]["ignored"] == {
        "in_newer_checkpoint": 6
    }


def test_a_file_of_another_trainer_and_a_cut_summary_turn_both_checks_red(tmp_path, monkeypatch):
    """issue 36: the asset still writes what it read, and the two checks name what they could not account for."""
    lines = "".join(f"step:{s} - critic/rewards/mean:{s / 10} - actor/entropy:{s}e-1\n" for s in range(1, 5))
    summary = json.dumps({"_step": 4, "critic/rewards/mean": 0.4, "actor/entropy": 0.4})
    state = json.dumps({"global_step": 2, "log_history": [{"step": 1, "loss": 1.0}, {"step": 2, "loss": 0.5}]})
    result, reports = run(
        tmp_path,
        monkeypatch,
        "org/mixed-8B",
        {"output.log": lines, "wandb-summary.json": summary[:20], "hf/trainer_state.json": state},
    )
    assert result.success and result.output_for_node("training_metrics").n_steps == 4
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    accounted, wandb = checks["every_input_accounted_for"], checks["log_matches_wandb_summary"]
    assert not accounted.passed and accounted.description.startswith(
        "1 file(s) not fully accounted for: hf/trainer_state.json: holds trainer_state logs, not read"
    )
    assert not wandb.passed and "wandb-summary.json: unreadable wandb-summary.json" in wandb.description
    report = (reports / "report.md").read_text()
    assert "Not every input was accounted for" in report and "cannot be read" in report
