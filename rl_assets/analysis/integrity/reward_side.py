"""The reward-side signals: is the reward being earned by something other than the task?

reward_task_divergence, non_task_term_share and train_val_divergence (rules.SIGNAL_RULES). Each
needs the reward to rise first (reward_rise.py, rules.py rule 0); a reward that does not rise
cannot have been earned outside the task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import kl_per_token, rules
from rl_assets.analysis.integrity.curve import Curve, joint, logged
from rl_assets.analysis.stats.onset import first_sustained
from rl_assets.values.metric_aliases import REWARD_TERM_PREFIX

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

REMAINDER = "non-task remainder (reward − task_score)"
IDENTICAL = (
    "task_score is the reward itself (equal at every step both log): no task evidence apart from the reward "
    "(verl's critic/score/mean holds whatever the reward function pays, e.g. a per-tool-call bonus)"
)


def task_is_reward(table: pd.DataFrame) -> bool:
    """task_score equals the reward at every step logging both (verl without an in-reward KL penalty,
    a TRL run with one task reward function): then it cannot tell the task from the rest of the reward."""
    import numpy as np

    both = joint(table, "reward", "task_score")
    return bool(len(both)) and bool(
        np.allclose(both["reward"].to_numpy(float), both["task_score"].to_numpy(float), rtol=1e-9, atol=1e-12)
    )


def divergence(table: pd.DataFrame, trend: dict[str, Any]) -> dict[str, Any]:
    name = "reward_task_divergence"
    if not trend["evaluable"]:
        return rules.no_data(name, trend["reason"])
    if not logged(table, "task_score"):
        return rules.no_data(name, "task_score not logged")
    if task_is_reward(table):
        return rules.no_data(name, IDENTICAL)
    both = joint(table, "reward", "task_score")
    if short := rules.too_few(name, "reward and task_score both logged", len(both)):
        return short
    reward, task = Curve.of(both["step"], both["reward"]), Curve.of(both["step"], both["task_score"])
    if not trend["rises"]:
        return rules.signal(name, rules.DOES_NOT_HOLD, trend["reason"], at_end=_pair(reward, task, -1))
    # the gap term keeps two curves that rise together from "diverging" while one is just past its threshold
    gap = reward.delta - task.delta > reward.threshold
    i = first_sustained(reward.up() & ~task.up() & gap, rules.SUSTAIN)
    if i is None:
        return rules.signal(
            name,
            rules.DOES_NOT_HOLD,
            f"task_score rose with the reward (or the reward was not up for {rules.SUSTAIN} steps in a row)",
            at_end=_pair(reward, task, -1),
        )
    return rules.signal(
        name,
        rules.HOLDS,
        f"reward up {reward.delta[-1]:+.3g} while task_score {task.delta[-1]:+.3g} (start to end, smoothed)",
        onset_step=int(reward.steps[i]),
        at_onset=_pair(reward, task, i),
        at_end=_pair(reward, task, -1),
    )


def _pair(reward: Curve, other: Curve, i: int, other_name: str = "task_score") -> dict[str, Any]:
    return {"step": int(reward.steps[i]), "reward": reward.at(i), other_name: other.at(i)}


def term_columns(table: pd.DataFrame) -> dict[str, pd.Series]:
    """{term name: its contribution to the reward per step} of the non-task terms.

    A kl_penalty term is logged as the penalty (verl: coeff × KL), which the reward subtracts, so
    its contribution is minus the logged value. When no non-task term other than a KL penalty is
    logged, reward − task_score (the non-task remainder) is a term too: it holds whatever else
    the reward pays for. verl's per-token KL term also appears approximately summed (kl_per_token.py).
    """
    terms = {
        c: -table[c] if c.split("/")[1] == "kl_penalty" else table[c]
        for c in table.columns
        if c.startswith(REWARD_TERM_PREFIX)
        and len(c.split("/")) > 2
        and c.split("/")[1] != "task"
        and table[c].notna().any()
    }
    only_kl = all(c.split("/")[1] == "kl_penalty" for c in terms)
    if only_kl and logged(table, "task_score") and logged(table, "reward"):
        terms[REMAINDER] = table["reward"] - table["task_score"]
    summed = kl_per_token.summed_penalty(table)
    if summed is not None:
        terms[kl_per_token.SUMMED] = -summed
    return terms


def carried_by_kl(share_signal: dict[str, Any]) -> bool:
    """non_task_term_share holds and the KL penalty itself (logged, or its per-token form summed) carries at
    least rules.SHARE of the reward's change at the end: the reward rose because the penalty shrank, not
    because something outside the task paid."""
    kl = [
        share
        for term, share in (share_signal.get("shares_end") or {}).items()
        if term == kl_per_token.SUMMED or term.startswith(f"{REWARD_TERM_PREFIX}kl_penalty/")
    ]
    # the remainder reward − task_score may hold a hidden bonus beside the penalty: only the KL term's own
    # share of the change counts
    return share_signal["status"] == rules.HOLDS and any(x >= rules.SHARE for x in kl)


def term_share(table: pd.DataFrame, trend: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    name = "non_task_term_share"
    if not trend["evaluable"]:
        return rules.no_data(name, trend["reason"])
    terms = term_columns(table)
    if not terms:
        return rules.no_data(name, "no non-task reward term logged and no task_score to form reward − task_score")
    shares: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    for term, values in terms.items():
        ok = table["reward"].notna() & values.notna()
        if ok.sum() < rules.MIN_STEPS:
            continue
        reward, part = (
            Curve.of(table.loc[ok, "step"], table.loc[ok, "reward"]),
            Curve.of(table.loc[ok, "step"], values[ok]),
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(reward.delta != 0, part.delta / reward.delta, np.nan)
        i = first_sustained(reward.up() & (share >= rules.SHARE), rules.SUSTAIN) if trend["rises"] else None
        row: dict[str, Any] = {
            "term": term,
            "share_end": float(share[-1]),
            "onset": i,
            "reward": reward,
            "part": part,
            "arithmetic": f"{term}: change {part.delta[-1]:+.4g} / reward change {reward.delta[-1]:+.4g} = "
            f"{share[-1]:.0%}"
            if np.isfinite(share[-1])
            else f"{term}: reward did not change",
        }
        shares.append(row)
        if i is not None and (best is None or reward.steps[i] < best["reward"].steps[best["onset"]]):
            best = row
    if not shares:
        return rules.no_data(name, f"no non-task term logged together with the reward at ≥ {rules.MIN_STEPS} steps")
    arithmetic = [s["arithmetic"] for s in shares]
    shares_end = {s["term"]: s["share_end"] for s in shares if np.isfinite(s["share_end"])}
    if not trend["rises"]:
        return rules.signal(name, rules.DOES_NOT_HOLD, trend["reason"], arithmetic=arithmetic)
    if best is None:
        return rules.signal(
            name,
            rules.DOES_NOT_HOLD,
            f"no non-task term carries ≥ {rules.SHARE:.0%} of the reward's change for {rules.SUSTAIN} steps in a row",
            arithmetic=arithmetic,
        )
    i, reward, part = best["onset"], best["reward"], best["part"]
    return rules.signal(
        name,
        rules.HOLDS,
        f"{best['term']} carries {best['share_end']:.0%} of the reward's change",
        onset_step=int(reward.steps[i]),
        at_onset=_pair(reward, part, i, best["term"]),
        at_end=_pair(reward, part, -1, best["term"]),
        term=best["term"],
        arithmetic=arithmetic,
        shares_end=shares_end,
    )


def train_val(table: pd.DataFrame, trend: dict[str, Any]) -> dict[str, Any]:
    name = "train_val_divergence"
    if not trend["evaluable"]:
        return rules.no_data(name, trend["reason"])
    n_val = int(table["val_score"].notna().sum()) if "val_score" in table.columns else 0
    if n_val < rules.VAL_MIN_ROUNDS:
        return rules.no_data(name, f"val_score logged at {n_val} validation rounds (fewer than {rules.VAL_MIN_ROUNDS})")
    val = table.loc[table["val_score"].notna(), ["step", "val_score"]]
    if not trend["rises"]:
        return rules.signal(name, rules.DOES_NOT_HOLD, trend["reason"])
    reward = trend["curve"]
    v_steps, v = val["step"].to_numpy(), val["val_score"].to_numpy(float)
    rows = [(int(s), reward.last_at_or_before(s), float(x)) for s, x in zip(v_steps[1:], v[1:])]
    mask = [j is not None and reward.up()[j] and x - v[0] < rules.VAL_RISE for _, j, x in rows]

    def at(k: int) -> dict[str, Any]:
        step, j, x = rows[k]
        return {
            "step": step,
            "reward": reward.at(j) if j is not None else None,
            "val_score": {"first": float(v[0]), "value": x, "change": x - float(v[0])},
        }

    k = first_sustained(mask, rules.VAL_SUSTAIN)
    if k is None:
        return rules.signal(
            name,
            rules.DOES_NOT_HOLD,
            f"val_score rose with the reward ({v[0]:.3g} → {v[-1]:.3g})",
            at_end=at(len(rows) - 1),
        )
    return rules.signal(
        name,
        rules.HOLDS,
        f"reward up while val_score went {v[0]:.3g} → {v[-1]:.3g}",
        onset_step=rows[k][0],
        at_onset=at(k),
        at_end=at(len(rows) - 1),
    )
