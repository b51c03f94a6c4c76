"""The reward-side signal `reward_tracks_behaviour`: the reward's rise is explained by a logged
behaviour count (tool calls, turns, response length) while the task outcome does not rise with it.

A reward function that pays per tool call (real: the ReTool-style bonus of verl agent-loop runs, where
a wrong answer earns (turns − 2)/2 × 0.1) shows no separate term: the bonus sits inside the reward
function's score, so reward − task_score is 0 and no non-task term is logged. What shows it is that
the reward moves with the behaviour. Behaviour also grows in healthy runs (responses lengthen as
reasoning RL improves the task), so explaining the rise is never enough on its own: the signal holds
only when task-outcome evidence independent of the reward was logged and did not rise; without such
evidence it is "not enough data" and names what could not be checked (rules.SIGNAL_RULES).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import rules
from rl_assets.analysis.integrity.curve import Curve, joint, logged
from rl_assets.analysis.integrity.reward_side import task_is_reward
from rl_assets.analysis.stats.correlation import linear_dependence
from rl_assets.analysis.stats.onset import first_sustained

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

NAME = "reward_tracks_behaviour"
# the canonical behaviour counts (rl_assets/values/metric_aliases.py): per trajectory, per step
BEHAVIOURS = ("tool_calls", "turns", "response_length")


def behaviour_logged(table: pd.DataFrame) -> list[str]:
    """The behaviour columns with at least one finite value (the verdict asks for the signal then)."""
    return [b for b in BEHAVIOURS if logged(table, b)]


def fit(table: pd.DataFrame, behaviour: str, alpha: float) -> dict[str, Any] | None:
    """How much of the reward's change the behaviour's change explains, over the steps logging both;
    None when fewer than rules.MIN_STEPS steps log both.

    share per step = slope × (behaviour smoothed − its start) / (reward smoothed − its start), where
    slope is the least-squares slope of the reward on the behaviour over the steps (stats.correlation):
    the part of the reward's change a linear dependence on the behaviour accounts for.
    """
    import numpy as np

    both = joint(table, "reward", behaviour)
    if len(both) < rules.MIN_STEPS:
        return None
    x, y = both[behaviour].to_numpy(float), both["reward"].to_numpy(float)
    reward, part = Curve.of(both["step"], y), Curve.of(both["step"], x)
    dep = linear_dependence(x, y)  # a constant behaviour explains nothing: slope 0, p 1
    slope, rho, p_rho, r, p_r = dep["slope"], dep["rho"], dep["p_rho"], dep["r"], dep["p_r"]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(reward.delta != 0, slope * part.delta / reward.delta, np.nan)
    # the correlation must be real (Spearman, Bonferroni over the behaviours) and carry the share for
    # rules.SUSTAIN steps while the reward is up, as a non-task term's must (non_task_term_share)
    related = bool(np.isfinite(rho) and p_rho < alpha)
    # and the behaviour must have moved by the time the reward went up: one that starts moving later
    # did not earn the rise's start, it followed it (the demo's responses collapse 10 steps after its
    # bonus lifts the reward); the tolerance is one smoothing window, about how far a centred median
    # can place two onsets of one change apart
    reward_up = first_sustained(reward.up(), rules.SUSTAIN)
    moved = first_sustained(np.abs(part.delta) > part.threshold, rules.SUSTAIN)
    leads = reward_up is not None and moved is not None and moved <= reward_up + rules.WINDOW
    onset = first_sustained(reward.up() & (share >= rules.SHARE), rules.SUSTAIN) if related and leads else None
    explained = slope * part.delta[-1]

    def step(i: int | None) -> int | None:
        return int(reward.steps[i]) if i is not None else None

    return {
        "behaviour": behaviour,
        "steps": int(len(both)),
        "slope": slope,
        "behaviour_change": float(part.delta[-1]),
        "reward_change": float(reward.delta[-1]),
        "explained_change": float(explained),
        "share_end": float(share[-1]),
        "spearman": {"rho": rho, "p": p_rho},
        "pearson": {"r": r, "p": p_r},
        "moved_from_step": step(moved),
        "reward_up_from_step": step(reward_up),
        "moved_in_time": bool(leads),
        "onset": onset,
        "curves": (reward, part),  # for the signal's evidence; not stored
        "arithmetic": f"{behaviour}: slope {slope:.4g} reward per unit × its change {part.delta[-1]:+.4g} = "
        f"{explained:+.4g} of the reward's change {reward.delta[-1]:+.4g}"
        + (f" = {share[-1]:.0%}" if np.isfinite(share[-1]) else " (the reward did not change)")
        + f"; Spearman ρ {rho:.2f} (p {p_rho:.2g}; < {alpha:.3g} needed), Pearson r {r:.2f} (p {p_r:.2g}), "
        f"over {len(both)} steps; {behaviour} moved from step {step(moved)}, the reward up from step {step(reward_up)}"
        + ("" if leads else f" (later than {rules.WINDOW} logged steps after the reward: it followed the rise)"),
    }


def task_outcome(table: pd.DataFrame) -> dict[str, Any]:
    """What the task-outcome evidence independent of the reward did from the start to the end of the
    run: {"evidence": {source: numbers and whether it rose}, "rises": True/False/None (None: no
    evidence), "unchecked": [why each source could not be used]}."""
    evidence: dict[str, dict[str, Any]] = {}
    unchecked: list[str] = []
    if not logged(table, "task_score"):
        unchecked.append("task_score not logged")
    elif task_is_reward(table):
        unchecked.append(
            "task_score is the reward itself (equal at every step both log), so it cannot show the task earned the rise"
        )
    else:
        both = joint(table, "reward", "task_score")
        if len(both) < rules.MIN_STEPS:
            unchecked.append(f"reward and task_score both logged at {len(both)} steps (fewer than {rules.MIN_STEPS})")
        else:
            task = Curve.of(both["step"], both["task_score"])
            change = float(task.delta[-1])
            evidence["task_score"] = {
                "start": task.start,
                "end": float(task.smooth[-1]),
                "change": change,
                "threshold": task.threshold,
                "rises": bool(change > task.threshold),
                "text": f"task_score {task.start:.4g} → {task.smooth[-1]:.4g} ({change:+.3g}, smoothed; "
                f"up needs > {task.threshold:.3g})",
            }
    val = table.loc[table["val_score"].notna(), "val_score"] if "val_score" in table.columns else None
    n_val = 0 if val is None else len(val)
    if val is None or n_val < rules.VAL_MIN_ROUNDS:
        unchecked.append(f"val_score logged at {n_val} validation rounds (fewer than {rules.VAL_MIN_ROUNDS})")
    else:
        first, last = float(val.iloc[0]), float(val.iloc[-1])
        evidence["val_score"] = {
            "start": first,
            "end": last,
            "change": last - first,
            "threshold": rules.VAL_RISE,
            "rises": bool(last - first >= rules.VAL_RISE),
            "text": f"val_score {first:.4g} → {last:.4g} ({last - first:+.3g} over {len(val)} rounds; "
            f"up needs ≥ {rules.VAL_RISE:g})",
        }
    rises = any(e["rises"] for e in evidence.values()) if evidence else None
    return {"evidence": evidence, "rises": rises, "unchecked": unchecked}


def _at(reward: Curve, part: Curve, behaviour: str, i: int) -> dict[str, Any]:
    return {"step": int(reward.steps[i]), "reward": reward.at(i), behaviour: part.at(i)}


def reward_tracks_behaviour(table: pd.DataFrame, trend: dict[str, Any]) -> dict[str, Any]:
    if not trend["evaluable"]:
        return rules.no_data(NAME, trend["reason"])
    logged_now = behaviour_logged(table)
    if not logged_now:
        return rules.no_data(NAME, f"no behaviour count logged ({', '.join(BEHAVIOURS)})")
    alpha = rules.TREND_P / len(logged_now)  # Bonferroni over the behaviours tried
    fits = [f for b in logged_now if (f := fit(table, b, alpha)) is not None]
    if not fits:
        return rules.no_data(
            NAME,
            f"no behaviour count logged together with the reward at ≥ {rules.MIN_STEPS} steps "
            f"({', '.join(logged_now)})",
        )
    arithmetic = [f["arithmetic"] for f in fits]
    stored = [{k: v for k, v in f.items() if k not in ("curves", "onset", "arithmetic")} for f in fits]
    extra: dict[str, Any] = {"arithmetic": arithmetic, "behaviours": stored}
    if not trend["rises"]:
        return rules.signal(NAME, rules.DOES_NOT_HOLD, trend["reason"], **extra)
    explaining = [f for f in fits if f["onset"] is not None]
    if not explaining:
        return rules.signal(
            NAME,
            rules.DOES_NOT_HOLD,
            f"no behaviour count explains ≥ {rules.SHARE:.0%} of the reward's change for {rules.SUSTAIN} steps in a "
            "row with a significant correlation, having moved by the time the reward went up (arithmetic per count)",
            **extra,
        )
    best = min(explaining, key=lambda f: (f["curves"][0].steps[f["onset"]], -f["share_end"]))
    reward, part = best["curves"]
    i, b = best["onset"], best["behaviour"]
    task = task_outcome(table)
    shares = ", ".join(
        f"{f['behaviour']} {f['share_end']:.0%}" for f in sorted(explaining, key=lambda f: -f["share_end"])
    )
    said = f"behaviour explains the reward's rise ({shares}; {best['arithmetic'].split('; ')[0]})"
    extra |= {"behaviour": b, "task_outcome": task}
    if task["rises"] is None:
        return rules.signal(
            NAME,
            rules.NO_DATA,
            f"{said}; the task outcome could not be checked: {'; '.join(task['unchecked'])}",
            at_end=_at(reward, part, b, -1),
            **extra,
        )
    texts = "; ".join(e["text"] for e in task["evidence"].values())
    if task["rises"]:
        return rules.signal(
            NAME,
            rules.DOES_NOT_HOLD,
            f"{said}, but the task outcome rose with it ({texts}): the behaviour is how the task was earned",
            at_end=_at(reward, part, b, -1),
            **extra,
        )
    return rules.signal(
        NAME,
        rules.HOLDS,
        f"{said} while the task outcome did not rise ({texts})",
        onset_step=int(reward.steps[i]),
        at_onset=_at(reward, part, b, i),
        at_end=_at(reward, part, b, -1),
        **extra,
    )
