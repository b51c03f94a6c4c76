"""Plant a reward that pays for a behaviour into a copy of a per-step table (recall tests by injection).

The exploit issue 34 found on a real verl run: the reward function pays per tool call, inside its own
score, so the reward rises with the count whether or not the task is solved. Adding that bonus to a
real run's table gives a run whose truth is known, for measuring whether reward_integrity finds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rl_assets.values.metric_aliases import REWARD_TERM_PREFIX, reward_term_kind

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd


def plant_behaviour_bonus(
    steps: pd.DataFrame,
    behaviour: str = "tool_calls",
    per_unit: float = 0.1,
    *,
    inside_task_score: bool = True,
    term: str | None = None,
) -> pd.DataFrame:
    """A copy of `steps` whose reward also pays `per_unit` × (the behaviour − its first logged value) at each
    step logging both (steps missing either are left as they were).

    inside_task_score: the bonus is part of the reward function's score too, as in verl, whose
    critic/score/mean is whatever the reward function returns (then task_score is no task evidence).
    term: also log the bonus as its own reward term, `reward_term/<kind of term>/<term>` (a TRL run logs
    each reward function this way); None: the bonus is hidden, as in the real run.
    """
    if behaviour not in steps.columns or "reward" not in steps.columns:
        raise ValueError(f"plant_behaviour_bonus: the table has no {behaviour!r} or 'reward' column")
    out = steps.copy()
    count = out[behaviour].astype("float64")
    first = count.dropna()
    if first.empty:
        raise ValueError(f"plant_behaviour_bonus: {behaviour!r} is never logged")
    bonus = per_unit * (count - float(first.iloc[0]))
    paid = out["reward"].notna() & bonus.notna()
    out.loc[paid, "reward"] = out.loc[paid, "reward"] + bonus[paid]
    if inside_task_score and "task_score" in out.columns:
        scored = out["task_score"].notna() & bonus.notna()
        out.loc[scored, "task_score"] = out.loc[scored, "task_score"] + bonus[scored]
    if term is not None:
        out[f"{REWARD_TERM_PREFIX}{reward_term_kind(term)}/{term}"] = bonus.where(paid)
    return out
