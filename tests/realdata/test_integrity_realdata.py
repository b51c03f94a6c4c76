"""Reward integrity on the real public runs in tests/fixtures/realdata (read by the trainers' readers):
each excerpt keeps only a few steps (see its PROVENANCE.txt), so the truthful answer is "not enough
data", naming how many steps the reward was logged at."""

from pathlib import Path

import pytest

from rl_assets.analysis.integrity import reward_integrity, rules
from rl_assets.ingest.training_logs import read_training_logs

REAL = Path(__file__).parents[1] / "fixtures" / "realdata"


# steps per excerpt, from PROVENANCE.txt: verl PPO steps 4, 5, 10; TRL log_history steps 5, 10, 15,
# 190, 195, 200; verl 0.7 Megatron step lines 66 and 67
@pytest.mark.parametrize(
    "folder, steps", [("verl_ppo_codegen", 3), ("trl_grpo_chaos_economy", 6), ("verl_megatron_cut_lines", 2)]
)
def test_real_excerpts_are_not_enough_data_and_say_why(folder, steps):
    out = reward_integrity(read_training_logs(REAL / folder).steps)
    assert out["verdict"] == rules.NOT_ENOUGH
    assert out["n_steps"] == steps
    for name in rules.OUTSIDE_SIGNALS:
        assert out["signals"][name]["reason"] == f"reward logged at {steps} steps (fewer than {rules.MIN_STEPS})"


def test_real_trl_reward_terms_reach_the_analysis():
    # Chaos-Economy's five reward functions: format_reward_fn is a format term, the others "other"
    table = read_training_logs(REAL / "trl_grpo_chaos_economy").steps
    terms = sorted(c for c in table.columns if c.startswith("reward_term/"))
    assert terms == [
        "reward_term/format/format_reward_fn",
        "reward_term/other/diversity_reward_fn",
        "reward_term/other/oversight_reward_fn",
        "reward_term/other/pnl_reward_fn",
        "reward_term/other/risk_reward_fn",
    ]
    assert table.loc[table["step"] == 5, "reward_term/format/format_reward_fn"].item() == 0.55  # log_history[0]
