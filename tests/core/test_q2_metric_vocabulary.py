"""One metric vocabulary across trainers (rl_assets/values/metric_aliases.py): planted tables per trainer."""

import math

import pandas as pd
import pytest

from rl_assets.values.metric_aliases import CANONICAL, apply_aliases, derive_concepts, reward_term_kind


def concepts(rows: list[dict]) -> tuple[pd.DataFrame, dict, dict]:
    frame, sources = apply_aliases(pd.DataFrame(rows))
    frame, derived, terms = derive_concepts(frame)
    return frame, {**sources, **derived}, terms


@pytest.mark.parametrize(
    "name,kind",
    [
        ("accuracy_reward", "task"),
        ("correctness_reward_func", "task"),
        ("format_reward", "format"),
        ("xmlcount_reward_func", "format"),
        ("valid_json_reward", "format"),  # real: srinath-manda/IITD_Feb26_AAIPL checkpoints
        ("soft_overlong_punishment", "length"),
        ("len_penalty", "length"),
        ("tool_call_reward", "tool"),
        ("kl_penalty", "kl_penalty"),
        ("pnl_reward_fn", "other"),
    ],
)
def test_reward_term_kind_from_its_name(name, kind):
    assert reward_term_kind(name) == kind


def test_every_trainer_gets_the_contract_columns():
    frame, _, _ = concepts([{"step": 1, "reward/avg_raw_reward": 0.5}])  # SkyRL
    for col in (
        "reward",
        "task_score",
        "response_length",
        "entropy",
        "kl",
        "grad_norm",
        "policy_loss",
        "tool_calls",
        "turns",
        "length_clipped_share",
        "val_score",
    ):
        assert col in CANONICAL and col in frame.columns
    assert frame.loc[0, "reward"] == 0.5 and math.isnan(frame.loc[0, "task_score"])  # SkyRL: not logged


def test_trl_terms_old_and_new_spelling_and_the_task_score():
    frame, sources, terms = concepts(
        [
            {
                "step": 1,
                "reward": 1.5,
                "rewards/accuracy_reward": 0.5,
                "rewards/format_reward/mean": 1.0,
                "rewards/format_reward/std": 0.0,
            }
        ]
    )
    assert terms == {"reward_term/format/format_reward": "format", "reward_term/task/accuracy_reward": "task"}
    assert frame.loc[0, "task_score"] == 0.5 and sources["task_score"] == {"rewards/accuracy_reward": 1}
    assert frame.loc[0, "reward"] == 1.5 and "reward__raw" in frame.columns  # the raw key is kept, renamed
    assert not any(c.endswith("/std") and c.startswith("reward_term/") for c in frame.columns)


def test_verl_score_reward_in_reward_kl_and_validation():
    frame, sources, terms = concepts(
        [
            {
                "step": 1,
                "critic/score/mean": 0.2,
                "critic/rewards/mean": 0.19,
                "actor/reward_kl_penalty": 10.0,
                "actor/reward_kl_penalty_coeff": 0.001,
            },
            {
                "step": 2,
                "critic/score/mean": 0.3,
                "critic/rewards/mean": 0.29,
                "actor/reward_kl_penalty": 20.0,
                "val-aux/openai/gsm8k/reward/mean@1": 0.9,
                "val-core/openai/gsm8k/acc/mean@1": 0.4,
            },
        ]
    )
    assert frame["task_score"].tolist() == [0.2, 0.3] and frame["reward"].tolist() == [0.19, 0.29]
    # coeff x KL where the coeff was logged; the KL alone where it was not
    assert frame["reward_term/kl_penalty/in_reward_kl"].tolist() == pytest.approx([0.01, 20.0])
    assert terms == {"reward_term/kl_penalty/in_reward_kl": "kl_penalty"}
    assert math.isnan(frame.loc[0, "val_score"]) and frame.loc[1, "val_score"] == 0.4  # val-core, not val-aux
    assert sources["val_score"] == {"val-core/openai/gsm8k/acc/mean@1": 1}


def test_verl_older_validation_key():
    frame, _, _ = concepts([{"step": 10, "critic/score/mean": 0.1, "val/test_score/openai/gsm8k": 0.35}])
    assert frame.loc[0, "val_score"] == 0.35


def test_tensorboard_tags():
    frame, _, _ = concepts(
        [{"step": 3, "train/reward": 0.7, "train/kl": 0.02, "train/response_length": 210.0, "eval/accuracy": 0.6}]
    )
    assert (frame.loc[0, "reward"], frame.loc[0, "kl"], frame.loc[0, "response_length"], frame.loc[0, "val_score"]) == (
        0.7,
        0.02,
        210.0,
        0.6,
    )
