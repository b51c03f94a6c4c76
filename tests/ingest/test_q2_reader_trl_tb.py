"""HF Trainer / TRL trainer_state.json (several checkpoint folders) and TensorBoard event files."""

import json

import pytest

from rl_assets.ingest.training_logs import UnrecognisedLogsError, read_training_logs


def entry(step, **kw):
    return {"epoch": step / 100, "step": step, **kw}


def trl_entry(step):
    return entry(
        step,
        loss=0.01 * step,
        grad_norm=1.5,
        reward=0.2 * step,
        reward_std=0.1,
        kl=0.001 * step,
        entropy=0.9,
        **{
            "completions/mean_length": 300.0 - step,
            "rewards/accuracy_reward/mean": 0.1 * step,
            "rewards/accuracy_reward/std": 0.3,
            "rewards/format_reward/mean": 0.1 * step,
            "rewards/soft_overlong_punishment/mean": -0.01,
        },
    )


def state(global_step, history, best=None):
    return {"global_step": global_step, "best_model_checkpoint": best, "best_metric": None, "log_history": history}


def write(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def test_checkpoint_folders_newest_wins_and_overlaps_are_counted_once(tmp_path):
    h = [trl_entry(s) for s in range(1, 7)]
    evals = [entry(3, eval_reward=0.45, eval_loss=0.2), entry(6, eval_reward=0.5, eval_loss=0.2)]
    write(tmp_path / "checkpoint-3" / "trainer_state.json", state(3, h[:3] + evals[:1]))
    write(tmp_path / "checkpoint-6" / "trainer_state.json", state(6, h + evals, best="out/checkpoint-6"))
    write(tmp_path / "trainer_state.json", state(6, h + evals + [entry(6, train_runtime=99.0, train_loss=0.03)]))
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "trl"
    s = parsed.steps.set_index("step")
    assert list(s.index) == [1, 2, 3, 4, 5, 6]
    assert s.loc[6, "reward"] == pytest.approx(1.2) and s.loc[6, "val_score"] == 0.5 and s.loc[3, "val_score"] == 0.45
    assert s.loc[4, "task_score"] == pytest.approx(0.4) and s.loc[4, "response_length"] == 296.0
    assert s.loc[2, "reward_term/format/format_reward"] == pytest.approx(0.2)
    assert s.loc[2, "reward_term/length/soft_overlong_punishment"] == -0.01
    assert parsed.reward_terms == {
        "reward_term/format/format_reward": "format",
        "reward_term/length/soft_overlong_punishment": "length",
        "reward_term/task/accuracy_reward": "task",
    }
    assert s.loc[5, "kl"] == pytest.approx(0.005) and s.loc[5, "entropy"] == 0.9 and s.loc[5, "policy_loss"] == 0.05
    lines = parsed.accounting["lines"]
    # 9 + 8 + 4 entries read; 8 kept (6 train + 2 eval) from the newest file; the rest in a newer file or the summary
    assert lines["read"] == 21 and lines["parsed"] == {"log_history_eval": 2, "log_history_train": 6}
    assert lines["ignored"] == {"in_newer_checkpoint": 12, "run_summary": 1}
    assert parsed.accounting["files"] == {**parsed.accounting["files"], "found": 3, "read": 3}
    first = parsed.trainer_info["checkpoints"][0]  # newest first; the root copy ties with checkpoint-6
    assert first["global_step"] == 6 and {c["best_model_checkpoint"] for c in parsed.trainer_info["checkpoints"]} == {
        None,
        "out/checkpoint-6",
    }


def test_plain_hf_trainer_and_entries_without_step(tmp_path):
    write(tmp_path / "trainer_state.json", state(2, [entry(1, loss=2.0), {"loss": 1.0}, entry(2, loss=1.5)]))
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "hf_trainer" and parsed.malformed["by_reason"] == {"entry_without_step": 1}
    assert parsed.steps["policy_loss"].tolist() == [2.0, 1.5]


def test_empty_log_history_is_an_error_not_an_empty_table(tmp_path):
    write(tmp_path / "trainer_state.json", state(0, []))
    with pytest.raises(UnrecognisedLogsError, match="read as hf_trainer, but no training step"):
        read_training_logs(tmp_path)


def test_unrecognised_files_are_named_with_their_first_lines(tmp_path):
    (tmp_path / "train.log").write_text("epoch=1 loss is low\nall good\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(UnrecognisedLogsError) as err:
        read_training_logs(tmp_path)
    text = str(err.value)
    assert "no reader recognises these files" in text and "- train.log: 'epoch=1 loss is low' | 'all good'" in text
    assert "- notes.txt: 'hello'" in text


def test_tensorboard_file_written_by_the_library(tmp_path):
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(tmp_path / "runs"))
    for step in range(1, 5):
        values = [
            Summary.Value(tag="train/reward", simple_value=0.25 * step),
            Summary.Value(tag="train/kl", simple_value=0.01 * step),
        ]
        writer.add_event(Event(step=step, wall_time=1_700_000_000.0 + step, summary=Summary(value=values)))
    writer.close()
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "tensorboard"
    s = parsed.steps.set_index("step")
    assert s["reward"].tolist() == [0.25, 0.5, 0.75, 1.0] and s.loc[4, "kl"] == pytest.approx(0.04)
    assert str(s.loc[2, "step_time_utc"]) == "2023-11-14 22:13:22+00:00"
    assert parsed.accounting["lines"]["parsed"] == {"scalar": 8}


def test_a_folder_with_two_trainers_reads_one_and_lists_the_other(tmp_path):
    write(tmp_path / "trainer_state.json", state(1, [trl_entry(1)]))
    (tmp_path / "output.log").write_text("step:1 - critic/rewards/mean:0.5\n")
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "verl"
    assert parsed.accounting["files"]["not_read_files"] == {
        "trainer_state.json": "trainer_state file; this folder was read as verl (one reader per folder)"
    }


def test_trl_cross_check_uses_the_trainers_global_step(tmp_path):
    write(tmp_path / "trainer_state.json", state(6, [trl_entry(s) for s in range(1, 7)]))
    # the HF W&B callback lets W&B count its own calls (_step 12) and logs the step as train/global_step
    write(
        tmp_path / "wandb" / "run-1" / "files" / "wandb-summary.json",
        {"_step": 12, "train/global_step": 6, "train/reward": 1.2, "train/kl": 0.006},
    )
    check = read_training_logs(tmp_path).cross_checks[0]
    assert check["step"] == 6 and check["status"] == "match" and check["matched"] == 2
    write(
        tmp_path / "wandb" / "run-1" / "files" / "wandb-summary.json",
        {"_step": 12, "train/global_step": 6, "train/reward": 1.0},
    )  # step 5's reward: caught
    check = read_training_logs(tmp_path).cross_checks[0]
    assert check["status"] == "differ" and "step 5" in check["differ"][0]["hint"]
