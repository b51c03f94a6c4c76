"""The trainer readers on real public runs (tests/fixtures/realdata/*/PROVENANCE.txt). Every expected
value below was read by hand from the fixture file and is quoted next to its assertion."""

import math
import shutil
from pathlib import Path

import pytest

from rl_assets.ingest.training_logs import read_training_logs

REAL = Path(__file__).parents[1] / "fixtures" / "realdata"


def test_verl_ppo_console_log(tmp_path):
    shutil.copy(REAL / "verl_ppo_codegen" / "verl_demo.log", tmp_path)
    parsed = read_training_logs(tmp_path)
    s = parsed.steps.set_index("step")
    assert parsed.trainer == "verl" and list(s.index) == [4, 5, 10]
    # step:4 - ... critic/score/mean:0.013 ... critic/rewards/mean:0.013 ... response_length/mean:396.656
    assert s.loc[4, "task_score"] == 0.013 and s.loc[4, "reward"] == 0.013 and s.loc[4, "response_length"] == 396.656
    # step:10 - ... critic/kl:0.001 - critic/kl_coeff:0.001 ... actor/pg_loss:-0.003 ... actor/grad_norm:0.145
    assert s.loc[10, "policy_loss"] == -0.003 and s.loc[10, "grad_norm"] == 0.145
    # step:5 - ... critic/vf_explained_var:-561.885 (a negative value kept as written)
    assert s.loc[5, "critic/vf_explained_var"] == -561.885
    # 7 lines: 3 step lines; 3 "epoch 0, step N" lines and 1 "Passed 0/3 tests" line are text
    assert parsed.accounting["lines"]["parsed"] == {"verl_step_line": 3}
    assert parsed.accounting["lines"]["ignored"] == {"text": 4}


def test_verl_lines_cut_at_1200_characters(tmp_path):
    shutil.copy(REAL / "verl_megatron_cut_lines" / "train.log", tmp_path)
    parsed = read_training_logs(tmp_path)
    s = parsed.steps.set_index("step")
    assert list(s.index) == [66, 67]
    # "...critic/score/mean:-0.8515625 ... critic/rewards/mean:-0.8515625" (step 66),
    # "...critic/score/mean:-0.912109375 ..." (step 67), "actor/entropy:2.7348358631134033" (step 67)
    assert s.loc[66, "task_score"] == -0.8515625 and s.loc[66, "reward"] == -0.8515625
    assert s.loc[67, "task_score"] == -0.912109375 and s.loc[67, "entropy"] == 2.7348358631134033
    # "actor/kl_loss:0.6545060325188388" is the KL (to the reference) the actor's loss carries
    assert s.loc[66, "kl"] == 0.6545060325188388
    # both lines end inside a key ("- response_l", "- re"): that pair is dropped and counted, once per line
    assert parsed.malformed["pairs_dropped"] == {"unparseable_pair": 2}
    assert "response_l" not in s.columns and "re" not in s.columns
    assert s.loc[66, "response_length_non_aborted/mean"] == 71.62109375  # the last complete pair is kept
    led = parsed.accounting["lines"]
    assert led["read"] == 7 and led["parsed"] == {"verl_step_line": 2} and sum(led["ignored"].values()) == 5


def test_trl_grpo_trainer_state(tmp_path):
    shutil.copy(REAL / "trl_grpo_chaos_economy" / "trainer_state.json", tmp_path)
    parsed = read_training_logs(tmp_path)
    s = parsed.steps.set_index("step")
    assert parsed.trainer == "trl" and list(s.index) == [5, 10, 15, 190, 195, 200]
    # step 200: "reward": -0.48682005107402804, "completions/mean_length": 512.0, "kl": 0.047279800102114675
    assert s.loc[200, "reward"] == -0.48682005107402804 and s.loc[200, "response_length"] == 512.0
    assert s.loc[200, "kl"] == 0.047279800102114675
    # step 5: "rewards/format_reward_fn/mean": 0.55 -> a format term; "rewards/pnl_reward_fn/mean": -0.2306154489517212
    assert s.loc[5, "reward_term/format/format_reward_fn"] == 0.55
    assert s.loc[5, "reward_term/other/pnl_reward_fn"] == pytest.approx(-0.2306154489517212)
    assert parsed.reward_terms == {
        "reward_term/format/format_reward_fn": "format",
        "reward_term/other/diversity_reward_fn": "other",
        "reward_term/other/oversight_reward_fn": "other",
        "reward_term/other/pnl_reward_fn": "other",
        "reward_term/other/risk_reward_fn": "other",
    }
    # no reward function names a task score, so task_score stays NaN: "not logged" is the truth
    assert s["task_score"].isna().all()
    # step 10: "loss": -0.09775545001029969 (GRPO's loss is the policy loss), "grad_norm": 0.3128657042980194
    assert s.loc[10, "policy_loss"] == -0.09775545001029969 and s.loc[10, "grad_norm"] == 0.3128657042980194


def test_verl_wandb_run_folder_with_its_summary():
    parsed = read_training_logs(REAL / "verl_wandb_run_aopd_8g5bqf9b")
    s = parsed.steps.set_index("step")
    assert parsed.trainer == "verl" and list(s.index) == list(range(12))
    # step:11 - ... critic/rewards/mean:-9.528329849243164 ... critic/score/mean:-0.890625 ...
    # actor/reward_kl_penalty:0.30880066752433777 - actor/reward_kl_penalty_coeff:0.02 ...
    # actor/entropy:0.38324397802352905
    assert s.loc[11, "reward"] == -9.528329849243164 and s.loc[11, "task_score"] == -0.890625
    assert s.loc[11, "reward_term/kl_penalty/in_reward_kl"] == pytest.approx(0.30880066752433777 * 0.02)
    assert s.loc[11, "entropy"] == 0.38324397802352905
    # the step:0 line was cut at 4,095 characters before the val-core keys; the "Initial validation
    # metrics" block (line 76: "'val-core/aime_2024/acc/mean@30': np.float64(0.04777777777777778)") fills them
    assert s.loc[0, "val_score"] == 0.04777777777777778
    # step:10 was cut at 4,096 characters ("...best@8/std:np."): its reward came after the cut
    assert math.isnan(s.loc[10, "reward"]) and s.loc[10, "entropy"] == 0.4079267680644989
    assert parsed.malformed["pairs_dropped"] == {"unparseable_pair": 2}  # the two cut last pairs
    led = parsed.accounting["lines"]
    assert led["read"] == 224 and led["parsed"] == {"verl_step_line": 12, "verl_validation_block": 194}
    # wandb-summary.json: _step 11; its val keys come from the step-10 validation (cut from the log
    # there), so they are "not at this step", not disagreements; every shared key of step 11 agrees
    check = parsed.cross_checks[0]
    assert check["status"] == "match" and check["step"] == 11 and check["matched"] == len(check["compared"]) > 50
    assert "val-core/aime_2024/acc/mean@30" in check["not_at_step"]
