"""verl's in-reward KL term is logged per token; the reward subtracts it summed over the response.

verl logs `actor/reward_kl_penalty` as the batch mean of each response's per-token mean KL, and the
reader turns it into `reward_term/kl_penalty/in_reward_kl` (coeff × that key). `critic/rewards/mean`
subtracts coeff × KL summed over each response's tokens, so the logged term understates the penalty
by about the response length. With `response_length` logged, term × mean response length
approximates the summed penalty: mean(length × per-token KL) is not mean(length) × mean(per-token KL)
when long responses carry a different KL per token than short ones, so it is shown as an
approximation beside the exact non-task remainder (reward − task_score), never instead of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rl_assets.analysis.integrity.curve import logged
from rl_assets.values.metric_aliases import REWARD_TERM_PREFIX

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

PER_TOKEN = f"{REWARD_TERM_PREFIX}kl_penalty/in_reward_kl"  # the name metric_aliases gives verl's term
SUMMED = f"{PER_TOKEN} × response_length (≈ summed over the response)"

NOTE = (
    f"{PER_TOKEN} is verl's per-token KL penalty (coeff × actor/reward_kl_penalty); the reward subtracts the "
    "penalty summed over each response, so this term understates it by about the response length"
)
SUMMED_NOTE = (
    f"{SUMMED} approximates the summed penalty as term × mean response length (exact only when the per-token "
    "KL does not vary with length); the non-task remainder reward − task_score is exact"
)


def summed_penalty(table: pd.DataFrame) -> pd.Series | None:
    """The approximate summed penalty per step (as logged, before the minus sign), or None."""
    if not (logged(table, PER_TOKEN) and logged(table, "response_length")):
        return None
    return table[PER_TOKEN] * table["response_length"]


def notes(table: pd.DataFrame) -> list[str]:
    """What the report says about the KL term of this table (nothing when verl's term is not logged)."""
    if not logged(table, PER_TOKEN):
        return []
    return [NOTE] + (
        [SUMMED_NOTE] if logged(table, "response_length") else ["response_length not logged: no summed approximation"]
    )
