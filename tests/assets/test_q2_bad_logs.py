"""Bad-input corpus for the SkyRL log reader: every symptom of issue 13 items 2 and 3, each written
here as log lines in the real trainer's order, each with the outcome a user must get."""

import gzip
import importlib.util
import json

import pytest

from rl_assets.analysis.q2.result import accounting_verdict, wandb_verdict
from rl_assets.ingest.skyrl_log import parse_training_logs

T = "2026-06-01 10:{:02d}:{:02d}.000 | INFO     | skyrl_train.trainer:{} - "


def at(minute: int, where: str, msg: str, second: int = 0) -> str:
    return T.format(minute, second, where) + msg


def step_lines(n: int, minute: int, reward: float, kl: float, cost: float, bar: bool = True) -> list[str]:
    """One step as SkyRL prints it: the reward lines INSIDE the step, the policy dict after it."""
    started = at(minute, "train:391", "Started: 'step'")
    return [
        (f"Training Step Progress:   0%|          | {n - 1}/20 [00:00<?, ?it/s]" if bar else "") + started,
        at(minute, "generate:875", f"Generation rewards - Avg: {reward:.3f}, Success rate: {reward:.3f}", 10),
        at(minute, "compute_advantages_and_returns:1019", f"avg_raw_rewards: {reward}, avg_response_length: 600.5", 20),
        at(minute, "train:391", f"Finished: 'step', time cost: {cost:.2f}s", 30),
        at(minute, "train:469", repr({"policy_loss": 0.01 * n, "policy_kl": kl, "raw_grad_norm": 1.0}), 30),
        at(minute, "train:487", f"[Step {n}] Logged 2 metrics", 30),
    ]


def write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_reward_sits_on_its_own_step_first_and_last_included(tmp_path):
    lines = step_lines(1, 1, 0.25, 0.01, 100) + step_lines(2, 2, 0.5, 0.02, 110) + step_lines(3, 3, 0.75, 0.03, 120)
    steps = parse_training_logs(write(tmp_path / "run.out", lines)).steps.set_index("step")
    assert steps["reward"].tolist() == [0.25, 0.5, 0.75]  # first step's reward kept, last row has one
    assert steps["kl"].tolist() == [0.01, 0.02, 0.03] and steps["policy_loss"].tolist() == [0.01, 0.02, 0.03]
    assert steps["generation/avg_reward"].tolist() == [0.25, 0.5, 0.75]


def test_lines_after_step_logged_and_eval_lines_belong_to_no_step(tmp_path):
    lines = (
        step_lines(1, 1, 0.25, 0.01, 100)
        + [
            at(4, "train:477", "Started: 'eval'"),
            at(4, "generate:875", "Generation rewards - Avg: 0.900, Success rate: 0.900", 5),
            at(4, "train:477", "Finished: 'eval', time cost: 9.00s", 9),
            at(5, "train:487", "[Step 1] Logged 37 metrics"),
            at(5, "compute_advantages_and_returns:1", "avg_raw_rewards: 0.99, avg_response_length: 1.0", 1),
        ]
        + step_lines(2, 6, 0.5, 0.02, 110)
    )
    parsed = parse_training_logs(write(tmp_path / "run.out", lines))
    steps = parsed.steps.set_index("step")
    assert steps.loc[1, "generation/avg_reward"] == 0.25 and steps.loc[1, "timing/eval"] == 9.0
    assert steps["reward"].tolist() == [0.25, 0.5]
    assert parsed.accounting["lines"]["ignored"] == {"outside_step": 1}
    # the eval's batch line has no tqdm bar (no trajectory count): no round is scored from it, a named skip
    assert parsed.accounting["lines"]["malformed"] == {"eval_round_batch_without_count": 1}


def test_restart_in_one_file_replaces_the_killed_attempts_step_whole(tmp_path):
    killed = (
        step_lines(1, 1, 0.25, 0.01, 100)
        + step_lines(2, 2, 0.5, 0.02, 110)
        + [
            at(3, "train:391", "Started: 'step'"),  # step 3 killed mid-way
            at(3, "train:404", "Finished: 'generate', time cost: 55.00s", 5),
        ]
    )
    rerun = [
        "Ray runtime started.",
        at(10, "train:367", "Resumed training from global_step 1"),
        at(11, "train:391", "Started: 'step'"),
        at(11, "compute_advantages_and_returns:1019", "avg_raw_rewards: 0.6, avg_response_length: 500.0", 20),
        at(11, "train:391", "Finished: 'step'", 30),  # no time cost, and the dict below has no kl
        at(11, "train:469", repr({"policy_loss": 0.5, "raw_grad_norm": 2.0}), 30),
    ]
    parsed = parse_training_logs(write(tmp_path / "run.out", killed + rerun))
    steps = parsed.steps.set_index("step")
    assert steps.loc[2, "reward"] == 0.6 and steps.loc[2, "policy_loss"] == 0.5
    assert steps.loc[2, "kl"] != steps.loc[2, "kl"]  # NaN: the killed attempt's kl is not mixed in
    assert steps.loc[2, "timing/step"] != steps.loc[2, "timing/step"]  # nor its step time
    assert steps.loc[3, "timing/generate"] == 55.0  # the killed step 3 is all the log has for 3
    assert parsed.counts["steps_replaced_by_restart"] == 1 and parsed.counts["restarts_in_file"] == 1
    # issue 36: the killed attempt's step-2 lines (Started, its two reward lines, Finished, its policy dict) are
    # merged duplicates in the ledger, no longer counted as parsed into a step
    assert parsed.accounting["lines"]["duplicate"] == {"key_values": 2, "metrics_dict": 1, "timer": 2}


def mirror(step: int, reward: float) -> str:
    return f'WANDB_MIRROR kind=train step={step} metrics={{"reward/avg_raw_reward": {reward}}}'


def test_rotated_and_gzip_logs_are_read(tmp_path):
    write(tmp_path / "train.log.2", [mirror(1, 0.1)])
    write(tmp_path / "train.log.1", [mirror(2, 0.2)])
    write(tmp_path / "train.log", [mirror(3, 0.3), mirror(2, 0.25)])
    with gzip.open(tmp_path / "old_rl_1.out.gz", "wt") as fh:
        fh.write(mirror(4, 0.4) + "\n")
    parsed = parse_training_logs(tmp_path)
    steps = parsed.steps.set_index("step")
    assert steps["reward"].to_dict() == {1: 0.1, 2: 0.25, 3: 0.3, 4: 0.4}  # the live log is the newest
    assert parsed.accounting["files"]["read"] == 4 and parsed.accounting["files"]["not_read"] == 0


def test_zst_log_is_read_or_listed_as_not_read_with_the_reason(tmp_path):
    write(tmp_path / "a.out", [mirror(1, 0.1)])
    zst = tmp_path / "b.out.zst"
    if importlib.util.find_spec("zstandard"):
        import zstandard

        zst.write_bytes(zstandard.ZstdCompressor().compress((mirror(2, 0.2) + "\n").encode()))
        assert parse_training_logs(tmp_path).steps["step"].tolist() == [1, 2]
    else:
        zst.write_bytes(b"\x28\xb5\x2f\xfd not really read")
        acc = parse_training_logs(tmp_path).accounting
        files = acc["files"]
        assert files["not_read_files"] == {"b.out.zst": "zstd-compressed log; the zstandard package is not installed"}
        # its steps are missing from the table: a named failure of the ledger (issue 36), not a quiet skip
        assert [f["file"] for f in files["failures"]] == ["b.out.zst"] and not accounting_verdict(acc).passed


def test_chain_without_timestamps_is_in_natural_order(tmp_path):
    write(tmp_path / "rl_999.out", [mirror(5, 0.1)])
    write(tmp_path / "rl_1000.out", [mirror(5, 0.2)])  # the newer job: must win step 5
    parsed = parse_training_logs(tmp_path)
    assert parsed.steps.set_index("step").loc[5, "reward"] == 0.2
    assert parsed.files == ["rl_999.out", "rl_1000.out"]


def test_an_impossible_timestamp_is_a_malformed_line_naming_file_and_line(tmp_path):
    lines = step_lines(1, 1, 0.25, 0.01, 100)
    lines.insert(2, "2026-13-01 10:00:00.000 | INFO     | skyrl_train.trainer:train:1 - avg_raw_rewards: 9.0")
    parsed = parse_training_logs(write(tmp_path / "logs" / "run.out", lines))
    assert parsed.malformed["by_reason"] == {"bad_timestamp": 1}
    assert parsed.malformed["examples"][0].startswith("run.out:3: bad_timestamp")
    assert parsed.steps["reward"].tolist() == [0.25]


def test_ledgers_add_up_and_unread_files_say_why(tmp_path):
    write(tmp_path / "run.out", step_lines(1, 1, 0.25, 0.01, 100) + ["free text", "{'model': 'x'}", mirror(9, 1)[:-3]])
    write(tmp_path / "notes.md", ["# hi"])
    acc = parse_training_logs(tmp_path).accounting
    lines = acc["lines"]
    assert lines["read"] == 9
    assert lines["malformed"] == {"wandb_truncated": 1}
    assert lines["ignored"] == {"non_metric_dict": 1, "text": 1}
    assert sum(lines["parsed"].values()) == 6
    assert acc["files"]["not_read_files"] == {"notes.md": "not a training log (.md)"}
    result = accounting_verdict(acc)
    assert result.passed and "9 lines = 6 parsed + 1 malformed + 2 ignored" in result.description


def test_wandb_summary_disagreeing_with_the_table_fails_the_check_naming_keys(tmp_path):
    write(tmp_path / "run.out", step_lines(1, 1, 0.25, 0.01, 100) + step_lines(2, 2, 0.5, 0.02, 110))
    summary = {"_step": 2, "reward/avg_raw_reward": 0.25, "policy/policy_loss": 0.02, "policy/policy_kl": 0.02}
    write(tmp_path / "files" / "wandb-summary.json", [json.dumps(summary)])
    parsed = parse_training_logs(tmp_path)
    (check,) = parsed.cross_checks
    assert check["status"] == "differ" and [d["key"] for d in check["differ"]] == ["reward/avg_raw_reward"]
    assert "step 1" in check["differ"][0]["hint"]  # the summary's reward is the table's one row up
    result = wandb_verdict(parsed.cross_checks)
    assert not result.passed and "reward/avg_raw_reward" in result.description


def test_no_independent_record_is_said_not_claimed_as_a_match(tmp_path):
    parsed = parse_training_logs(write(tmp_path / "run.out", step_lines(1, 1, 0.25, 0.01, 100)))
    result = wandb_verdict(parsed.cross_checks)
    assert result.passed and result.description.startswith("no independent record")
    assert "match" not in result.description


def test_trainer_jsonl_final_step_is_compared_with_the_text_logs(tmp_path):
    write(tmp_path / "run.out", step_lines(1, 1, 0.25, 0.01, 100))
    write(tmp_path / "trainer_log.jsonl", [json.dumps({"step": 1, "policy/policy_kl": 0.5})])
    (check,) = parse_training_logs(tmp_path).cross_checks
    assert check["source"] == "trainer_log.jsonl" and [d["key"] for d in check["differ"]] == ["policy/policy_kl"]


@pytest.mark.parametrize("tail", ["{'policy_loss': 0.1,", "  'x': 1,"])
def test_a_log_cut_inside_a_dict_block_still_balances(tmp_path, tail):
    parsed = parse_training_logs(write(tmp_path / "run.out", step_lines(1, 1, 0.25, 0.01, 100) + [tail]))
    lines = parsed.accounting["lines"]
    assert (
        sum(lines["parsed"].values()) + sum(lines["malformed"].values()) + sum(lines["ignored"].values())
        == lines["read"]
    )
