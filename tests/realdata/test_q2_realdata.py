"""Real SkyRL runs written by others (tests/fixtures/realdata/skyrl_ctu_agent_run_*/PROVENANCE.txt):
the step boundary, the restart numbering and the W&B cross-check on logs rldelta did not write.

Every expected value below was read by hand from the fixture files; the line it comes from is
quoted next to it.
"""

import math
from pathlib import Path

import pytest

from rl_assets.ingest.skyrl_log import parse_training_logs

REAL = Path(__file__).parents[1] / "fixtures" / "realdata"
RUN_A = REAL / "skyrl_ctu_agent_run_0i3x0z3y"  # 13 steps logged to W&B, killed in step 14
RUN_B = REAL / "skyrl_ctu_agent_run_qz54zcko"  # resumed at 10, killed in the eval after step 40
RUN_C = REAL / "skyrl_ctu_agent_run_33wkpvan"  # resumed at 6, timers glued after tqdm bars


def _row(parsed, step):
    return parsed.steps.set_index("step").loc[step]


def test_in_step_reward_lines_belong_to_their_own_step():
    parsed = parse_training_logs(RUN_A)
    # Training Step Progress: 0%| ... 0/2350 [00:00<?, ?it/s]2025-08-06 22:34:12.749 | ... - Started: 'step'
    # 2025-08-06 22:48:14.288 | ... - Generation rewards - Avg: 0.369, Success rate: 0.369
    # 2025-08-06 22:50:04.179 | ... - avg_raw_rewards: 0.3687500059604645, avg_response_length: 665.084375
    # 2025-08-06 22:52:59.875 | ... - Finished: 'step', time cost: 1127.13s
    # 2025-08-06 22:52:59.875 | ... - {'policy_loss': 0.0016804651357233524, ..., 'policy_kl': 0.037702111341059205, ...
    # 2025-08-06 22:52:59.875 | ... - [Step 1] Logged 2 metrics
    first = _row(parsed, 1)
    assert first["reward"] == 0.3687500059604645 and first["generation/avg_reward"] == 0.369
    assert first["policy_loss"] == 0.0016804651357233524 and first["kl"] == 0.037702111341059205
    assert first["timing/step"] == 1127.13 and first["response_length"] == 665.084375
    # step 13, the last one W&B got: avg_raw_rewards: 0.3843750059604645 inside it,
    # {'policy_loss': 0.003921483363956213, ...} right after its "Finished: 'step', time cost: 1254.41s"
    last = _row(parsed, 13)
    assert last["reward"] == 0.3843750059604645 and last["policy_loss"] == 0.003921483363956213
    assert last["timing/step"] == 1254.41
    # step 3's own generation line (23:22:12.524 "Avg: 0.388") -- not the eval's last one after its
    # Finished: 'step' (00:15:18.324 "Avg: 0.389", inside Started: 'eval' .. Finished: 'eval')
    assert _row(parsed, 3)["generation/avg_reward"] == 0.388
    assert _row(parsed, 3)["timing/eval"] == 2914.13  # "Finished: 'eval', time cost: 2914.13s"
    # step 14 was killed during generation: "Finished: 'step', time cost: 1021.08s" and no reward line
    assert parsed.steps["step"].tolist() == list(range(1, 15))
    assert _row(parsed, 14)["timing/step"] == 1021.08 and math.isnan(_row(parsed, 14)["reward"])


def test_final_step_matches_the_runs_wandb_summary():
    parsed = parse_training_logs(RUN_A)
    (check,) = parsed.cross_checks
    # wandb-summary.json: "_step": 13, "reward/avg_raw_reward": 0.384375,
    # "policy/policy_loss": 0.003921483363956213, "timing/step": 1254.40788936615
    assert check["source"] == "wandb-summary.json" and check["step"] == 13
    assert {"reward/avg_raw_reward", "policy/policy_loss", "policy/policy_kl", "timing/step"} <= set(check["compared"])
    assert check["status"] == "match" and check["differ"] == []
    # timing/eval ran at step 12 (not 13): W&B's summary still holds step 12's value
    assert "timing/eval" in check["not_at_step"]


def test_resumed_run_numbers_from_the_checkpoint_and_shows_what_wandb_never_got():
    parsed = parse_training_logs(RUN_B)
    # "Resumed training from global_step 10" -> the first step is 11; the last Finished: 'step' is 40
    assert parsed.steps["step"].tolist() == list(range(11, 41))
    assert "restarts_in_file" not in parsed.counts  # a file that opens resumed is one start, not a restart
    # step 40: avg_raw_rewards: 0.4593749940395355 ... Finished: 'step', time cost: 1032.35s,
    # {'policy_loss': 0.003835753910243511, ...}; then Started: 'eval' and the log ends (no [Step 40] Logged)
    last = _row(parsed, 40)
    assert last["reward"] == 0.4593749940395355 and last["policy_loss"] == 0.003835753910243511
    assert last["timing/step"] == 1032.35
    (check,) = parsed.cross_checks
    # wandb-summary.json "_step": 40 with "policy/policy_loss": 0.003835753910243511 and
    # "reward/avg_raw_reward": 0.459375 (step 40's) but "timing/step": 1139.345118522644 -- step 39's
    # "Finished: 'step', time cost: 1139.34s": step 40's timings never reached W&B.
    assert check["step"] == 40 and check["status"] == "differ"
    differ = {d["key"]: d for d in check["differ"]}
    assert "policy/policy_loss" not in differ and "reward/avg_raw_reward" not in differ
    assert differ["timing/step"]["table"] == 1032.35 and differ["timing/step"]["record"] == 1139.345118522644
    assert "step 39" in differ["timing/step"]["hint"]
    assert all(k.startswith("timing/") for k in differ)


def test_timers_glued_after_a_tqdm_bar_are_read():
    parsed = parse_training_logs(RUN_C)
    # "Resumed training from global_step 6", then five lines like
    # "Training Step Progress: 7it [27:30, 1650.91s/it]2025-07-23 07:25:07.470 | ... Finished: 'step', time cost:
    # 1577.07s"
    assert parsed.steps["step"].tolist() == [7, 8, 9, 10, 11]
    assert parsed.steps["timing/step"].tolist() == [1577.07, 1703.89, 1594.02, 1725.78, 1574.95]
    (check,) = parsed.cross_checks  # the summary's only training key is a reward this log never prints
    assert check["status"] == "no_shared_keys" and check["not_at_step"] == ["reward/avg_raw_reward"]


@pytest.mark.parametrize("run", [RUN_A, RUN_B, RUN_C], ids=lambda p: p.name)
def test_every_real_line_is_accounted_for(run):
    parsed = parse_training_logs(run)
    lines = parsed.accounting["lines"]
    n_lines = len((run / "output.log").read_text(encoding="utf-8").splitlines())
    assert lines["read"] == n_lines
    assert sum(lines["parsed"].values()) + sum(lines["malformed"].values()) + sum(lines["ignored"].values()) == n_lines
    # these excerpts dropped the tqdm bars, so an eval batch's trajectory count (its weight) is not in the
    # file: a build without a result line (A, B) gets no eval round from them, and every batch line inside
    # an eval is a named skip (the excerpt with the bars kept: tests/realdata/test_skyrl_eval_batch_rounds_realdata.py)
    in_eval, batch_lines = False, 0
    for text in (run / "output.log").read_text(encoding="utf-8").splitlines():
        if "Started: 'eval'" in text or "Finished: 'eval'" in text or "Started: 'step'" in text:
            in_eval = "Started: 'eval'" in text
        batch_lines += in_eval and "Generation rewards - " in text
    assert batch_lines == {RUN_A: 90, RUN_B: 125, RUN_C: 0}[run]
    assert lines["malformed"] == ({"eval_round_batch_without_count": batch_lines} if batch_lines else {})
    assert parsed.accounting["files"] == {
        "found": 3,
        "read": 2,
        "not_read": 1,
        "not_read_by_reason": {"not a training log (.txt)": 1},
        "not_read_files": {"PROVENANCE.txt": "not a training log (.txt)"},
        "failures": [],  # nothing read only in part, no other trainer's file skipped
        "n_failures": 0,
    }
    assert lines["duplicate"] == {}
