"""Every SkyRL log line shape of docs/formats.md ("Line shapes"), from sample lines written here."""

import json
import math

import pandas as pd
import pytest

from rl_assets.ingest.skyrl_log import LogFileParser, parse_training_logs
from support.shared_data import SHARED, needs_shared

LOGURU = "2026-06-01 10:22:{:02d}.004 | INFO     | skyrl_train.trainer:_log_metrics_stdout:1965 - "
FIXTURES = SHARED / "fixtures" / "skyrl_log_lines"


def feed(lines):
    p = LogFileParser("t.out")
    for line in lines:
        p.feed(line + "\n")
    return p.finish()


def test_wandb_mirror_kinds_nonfinite_and_default_global_step():
    res = feed(
        [
            "\x1b[32m(skyrl_entrypoint pid=8444) "
            + LOGURU.format(1)
            + 'WANDB_MIRROR kind=train step=7 metrics={"policy/policy_loss": NaN, "reward/avg_raw_reward": 0.5, "x": '
            "Infinity}\x1b[0m",
            LOGURU.format(2) + 'WANDB_MIRROR kind=eval step=7 metrics={"eval/all/avg_score": 0.3}',
            'WANDB_MIRROR kind=startup step=0 metrics={"startup/model_loading": 12.5}',
            'WANDB_MIRROR kind=train step=8 metrics={"reward/avg_raw_reward": 0.6, "trainer/global_step": 8, "note": '
            '"text"}',
        ]
    )
    steps = res.steps.to_frame().set_index("step")
    assert list(steps.index) == [7, 8]  # eval and startup are not training steps
    assert steps.loc[7, "trainer/global_step"] == 7  # defaulted from step=
    assert math.isnan(steps.loc[7, "policy/policy_loss"]) and steps.loc[7, "x"] == math.inf
    assert res.evals.to_frame()["eval/all/avg_score"].tolist() == [0.3]
    assert res.startup == {"startup/model_loading": 12.5}
    assert res.counts["non_numeric_values"] == 1 and res.counts["non_finite_values"] == 2
    assert steps.loc[7, "__time_end"] == pd.Timestamp("2026-06-01 10:22:01.004", tz="UTC").timestamp()


def test_truncated_and_malformed_lines_are_counted_not_fatal():
    res = feed(
        [
            'WANDB_MIRROR kind=train step=1 metrics={"reward/avg_raw_reward": 0.25}',
            'WANDB_MIRROR kind=train step=2 metrics={"a": 1,, "b": 2}',
            "WANDB_MIRROR kind=train step=3 metrics=[1, 2]",
            'WANDB_MIRROR kind=train step=4 metrics={"reward/avg_raw_reward": ',
        ]
    )
    assert res.steps.steps == [1]
    assert res.counts["malformed"] == 3
    assert res.counts["malformed/wandb_truncated"] == 1 and res.counts["malformed/wandb_json"] == 2
    assert len(res.examples) == 3


def test_legacy_dict_step_is_count_of_finished_steps_and_apostrophes_survive():
    where = "2026-06-01 10:00:{:02d}.000 | INFO     | skyrl_train.trainer:train:{} - "
    res = feed(
        [
            where.format(0, 391) + "Started: 'step'",
            where.format(1, 469)
            + "{'policy_loss': 0.0017, 'policy_entropy': 1.26, 'raw_grad_norm': 0.91, 'note': \"it's fine\"}",
            where.format(2, 391) + "Finished: 'step', time cost: 11.50s",
            where.format(3, 469)
            + "{'final_loss': 0.1, 'policy_kl': 0.04, 'grad_norm': nan, 'response_length': 1024.0}",
            where.format(4, 391) + "Started: 'step'",
            where.format(5, 391) + "Finished: 'generate', time cost: 7.25s",
            where.format(6, 391) + "Finished: 'step', time cost: 12.00s",
        ]
    )
    s = res.steps.to_frame().set_index("step")
    assert s.loc[1, "policy_loss"] == 0.0017  # printed inside open step 1
    assert s.loc[1, "policy_kl"] == 0.04  # printed after 1 Finished: 'step' -> step 1
    assert math.isnan(s.loc[1, "grad_norm"])  # bare nan decoded, not a malformed line
    assert s.loc[2, "timing/generate"] == 7.25 and s.loc[2, "timing/step"] == 12.0
    assert s.loc[1, "__time_start"] < s.loc[1, "__time_end"]
    assert "malformed" not in res.counts


def test_console_tracker_multiline_block_and_one_line_agentic_block():
    res = feed(
        [
            "Step 3:",
            "{'async/staleness_max': '0.0000',",
            " 'reward/avg_raw_reward': '0.3125',",
            " 'timing/step': '812.4000',",
            " 'trainer/global_step': 3}",
            "(skyrl_entrypoint pid=41213) {'async/staleness_max': 0, 'reward/avg_raw_reward': 0.4, "
            "'trainer/global_step': 4}",
            "{'async/staleness_mean': '0.0000',",  # a block cut off by an unrelated line
            "Training Step Progress: 5 / 20",
        ]
    )
    s = res.steps.to_frame().set_index("step")
    assert s.loc[3, "reward/avg_raw_reward"] == 0.3125 and s.loc[3, "timing/step"] == 812.4
    assert s.loc[4, "reward/avg_raw_reward"] == 0.4
    assert res.counts["malformed/dict_block_unterminated"] == 1
    assert {"console-dict", "python-dict"} <= res.serializations


def test_reward_and_advantage_lines():
    res = feed(
        [
            "2026-06-01 10:00:00.000 | INFO | skyrl_train.trainer:train:391 - Started: 'step'",
            "2026-06-01 10:00:01.000 | INFO | skyrl_train.trainer:compute_advantages_and_returns:801 - "
            "avg_raw_rewards: 0.41250, avg_response_length: 702.31",
            "2026-06-01 10:00:02.000 | INFO | skyrl_train.trainer:postprocess_generator_output:776 - "
            "reward/avg_pass_at_5: 0.653, reward/avg_raw_reward: 0.217",
            "Generation rewards - Avg: 0.512, Success rate: 0.5",
            "Reward: 1.0, because the agent's answer matched",  # rollout dump noise, not a metric line
        ]
    )
    s = res.steps.to_frame().set_index("step")
    assert s.loc[1, "avg_raw_rewards"] == 0.4125 and s.loc[1, "avg_response_length"] == 702.31
    assert s.loc[1, "reward/avg_pass_at_5"] == 0.653
    assert s.loc[1, "generation/avg_reward"] == 0.512 and s.loc[1, "generation/success_rate"] == 0.5
    assert "Reward" not in s.columns


def test_batch_error_lines_per_step():
    gen = (
        "\x1b[36m(TerminalBenchGenerator pid=48213, ip=10.0.5.12)\x1b[0m 2026-07-30 21:14:52.117 | INFO | g:generate - "
    )
    res = feed(
        [
            gen + "Step 2: collecting rollouts",
            gen + "Exception breakdown: {'AgentTimeoutError': 3, 'ContextLengthExceededError': 1}",
            gen + "Batch generation complete: 60/64 successful, 4 failed instances, 2 masked (excluded from baseline)",
            gen + "Batch generation complete: 30/32 successful, 2 failed instances, 0 masked",
            gen + "Exception breakdown: {not a dict",
        ]
    )
    s = res.steps.to_frame().set_index("step")
    assert s.loc[2, "batch_errors/total_batches"] == 2 and s.loc[2, "batch_errors/total_instances"] == 96
    assert s.loc[2, "batch_errors/total_failed"] == 6 and s.loc[2, "batch_errors/total_masked"] == 2
    assert s.loc[2, "batch_errors/total_AgentTimeoutError"] == 3
    assert s.loc[2, "batch_errors/avg_AgentTimeoutError"] == 1.5
    assert res.counts["malformed/batch_error_line"] == 1


def test_vllm_lines_aggregate_per_time_point_with_verdict(tmp_path):
    line = (
        "(AsyncVLLMInferenceEngine pid={pid}, ip=10.0.4.17) INFO 06-01 10:22:35 [loggers.py:248] Engine 000: "
        "Avg prompt throughput: 1520.4 tokens/s, Avg generation throughput: {gen} tokens/s, Running: 37 reqs, "
        "Waiting: {wait} reqs, GPU KV cache usage: 41.3%, Prefix cache hit rate: 72.9%"
    )
    (tmp_path / "a.out").write_text(
        line.format(pid=1, gen=611.0, wait=0) + "\n" + line.format(pid=2, gen=389.0, wait=2) + "\n"
    )
    parsed = parse_training_logs(tmp_path)
    row = parsed.vllm.iloc[0]
    assert row["n_engines_reporting"] == 2 and row["total_generation_tps"] == 1000.0 and row["total_running"] == 74
    assert parsed.vllm_summary["verdict"].startswith("Well-utilized")


def test_trainer_jsonl_and_wandb_summary(tmp_path):
    (tmp_path / "trainer_log.jsonl").write_text(
        json.dumps({"step": 1, "timestamp": "2026-06-01T10:00:00Z", "metrics": {"reward/avg_raw_reward": 0.1}})
        + "\n"
        + json.dumps({"trainer/global_step": 2, "reward/avg_raw_reward": 0.2})
        + '\n{"broken": \n'
    )
    wb = tmp_path / "wandb" / "run-1" / "files"
    wb.mkdir(parents=True)
    (wb / "wandb-summary.json").write_text(
        json.dumps({"_step": 2, "_runtime": 5, "reward/avg_raw_reward": 0.2, "x": "s"})
    )
    parsed = parse_training_logs(tmp_path)
    assert parsed.steps["reward"].tolist() == [0.1, 0.2]
    assert parsed.steps["step_time_utc"].iloc[0] == pd.Timestamp("2026-06-01T10:00:00Z")
    assert parsed.malformed["count"] == 1
    assert parsed.wandb_summary == {"_step": 2.0, "reward/avg_raw_reward": 0.2}


@pytest.mark.skipif(not FIXTURES.is_dir(), reason=needs_shared(FIXTURES))
def test_shared_fixture_files_each_parse():
    expect = {  # file -> (training steps, malformed lines)
        "gate_healthy_log.log": ([1, 2], 0),
        "gate_nan_and_eval_kind.log": ([1, 2], 0),
        "wandb_mirror_truncated_last_line.log": ([1, 2], 1),
        "wandb_mirror_malformed_and_ansi.log": ([7], 1),
        "watch_coreweave_finelog.log": ([7], 0),
        "legacy_python_dict_trainer.out": ([20, 40, 60], 0),
        "terminus-trainer.out": ([7], 0),
        "agentic_batch_errors.log": ([1], 0),
        "vllm_stat_logger_line.log": ([], 0),
    }
    for name, (steps, bad) in expect.items():
        parsed = parse_training_logs(FIXTURES / name)
        assert parsed.steps["step"].tolist() == steps, name
        assert parsed.malformed["count"] == bad, name
    ansi = parse_training_logs(FIXTURES / "wandb_mirror_malformed_and_ansi.log").steps
    assert ansi["grad_norm"].tolist() == [0.0371] and ansi["reward"].tolist() == [-0.9194]
    assert parse_training_logs(FIXTURES / "vllm_stat_logger_line.log").vllm_summary["total_samples"] == 1
