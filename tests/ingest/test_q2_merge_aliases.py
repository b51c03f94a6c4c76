"""Restart-chain merge (later log wins, duplicates reported) and the platform alias table."""

import pandas as pd

from rl_assets.ingest.skyrl_log import apply_aliases, parse_training_logs

MIRROR = (
    "2026-06-0{d} 10:00:{s:02d}.000 | INFO | skyrl_train.trainer:_log_metrics_stdout:1965 - WANDB_MIRROR "
    'kind=train step={step} metrics={{"reward/avg_raw_reward": {r}}}\n'
)


def test_restart_chain_orders_by_first_timestamp_and_later_log_wins(tmp_path):
    # file names sort opposite to time, so only the timestamp rule gives the right order
    (tmp_path / "job_200.out").write_text("".join(MIRROR.format(d=1, s=i, step=i, r=0.1) for i in (1, 2, 3)))
    (tmp_path / "job_100.out").write_text("".join(MIRROR.format(d=2, s=i, step=i, r=0.9) for i in (3, 4)))
    parsed = parse_training_logs(tmp_path)
    s = parsed.steps.set_index("step")
    assert parsed.files == ["job_200.out", "job_100.out"]
    assert s.loc[3, "reward"] == 0.9 and s.loc[3, "source_file"] == "job_100.out"
    assert s.loc[2, "reward"] == 0.1
    assert parsed.duplicates["count"] == 1 and parsed.duplicates["steps"] == [3]
    assert parsed.duplicates["examples"][3] == ["job_200.out", "job_100.out"]
    assert s.loc[3, "step_time_utc"] == pd.Timestamp("2026-06-02 10:00:03", tz="UTC")


def test_later_log_wins_the_whole_row_not_key_by_key(tmp_path):
    (tmp_path / "a.out").write_text(
        '2026-06-01 10:00:00.000 | INFO | x - WANDB_MIRROR kind=train step=5 metrics={"a": 1, "b": 2}\n'
    )
    (tmp_path / "b.out").write_text(
        '2026-06-01 11:00:00.000 | INFO | x - WANDB_MIRROR kind=train step=5 metrics={"a": 3}\n'
    )
    row = parse_training_logs(tmp_path).steps.iloc[0]
    assert row["a"] == 3 and pd.isna(row["b"])


def test_aliases_first_present_key_wins_per_row_and_raw_twins_are_kept():
    frame = pd.DataFrame(
        {
            "step": [1, 2, 3],
            "reward/avg_raw_reward": [0.1, None, None],
            "loss/avg_final_rewards": [0.5, 0.2, None],
            "avg_raw_rewards": [None, None, 0.3],
            "policy/raw_grad_norm": [None, 1.5, None],
            "grad_norm": [0.7, 0.8, 0.9],  # legacy raw key spelled like the canonical column
            "policy_kl": [0.01, 0.02, 0.03],
            "generate/avg_num_tokens": [900.0, None, None],
            "avg_response_length": [None, 700.0, None],
        }
    )
    out, sources = apply_aliases(frame)
    assert out["reward"].tolist() == [0.1, 0.2, 0.3]
    assert out["grad_norm"].tolist() == [0.7, 1.5, 0.9]
    assert out["grad_norm__raw"].tolist() == [0.7, 0.8, 0.9]
    assert out["kl"].tolist() == [0.01, 0.02, 0.03]
    assert out["response_length"].tolist()[:2] == [900.0, 700.0]
    assert sources["reward"] == {"reward/avg_raw_reward": 1, "loss/avg_final_rewards": 1, "avg_raw_rewards": 1}
    assert out["entropy"].isna().all() and sources["entropy"] == {}
