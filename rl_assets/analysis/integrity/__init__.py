"""Reward integrity — is the reward being earned outside the task, or has the policy collapsed?

A pure analysis of one run's per-step training table (canonical columns: reward, task_score,
reward_term/<kind>/<name>, response_length, tool_calls, turns, length_clipped_share, entropy, val_score) and,
optionally, its validation generations (step, sample, input, output, score). Rules: rules.py, docs/integrity.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import (
    behaviour,
    collapse,
    finite,
    kl_per_token,
    reward_rise,
    reward_side,
    rules,
    truncation,
)

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd


def reward_integrity(
    steps: pd.DataFrame,
    generations: pd.DataFrame | None = None,
    generations_note: str = "no validation-generation table logged",
) -> dict[str, Any]:
    """Every signal (status, onset step, evidence at onset and at the end) and the run's verdict;
    `generations_note` is the reason given when `generations` is None."""
    if "step" not in steps.columns:
        raise ValueError(
            f"reward_integrity: the per-step table has no 'step' column (columns: {list(steps.columns)[:12]})"
        )
    # non-finite entries (±inf, "nan" strings) are counted, named and then treated as not logged
    table, non_finite = finite.finite_table(steps.sort_values("step").reset_index(drop=True))
    trend = reward_rise.reward_trend(table, non_finite.get("reward"))
    found = [
        reward_side.divergence(table, trend),
        reward_side.term_share(table, trend),
        reward_side.train_val(table, trend),
        behaviour.reward_tracks_behaviour(table, trend),
        collapse.floor_collapse(table, "response_length", rules.LENGTH_FLOOR, "length_collapse"),
        collapse.floor_collapse(table, "entropy", rules.ENTROPY_FLOOR, "entropy_collapse"),
        collapse.floor_collapse(table, "tool_calls", rules.TOOL_FLOOR, "tool_use_collapse", rules.TOOL_ABANDONED),
        collapse.generations(generations, generations_note),
        truncation.length_truncation(table),
    ]
    signals = {s["name"]: s for s in found}
    verdict, why = rules.verdict(
        signals,
        bool(behaviour.behaviour_logged(table)),
        reward_steps=int(table["reward"].notna().sum()) if "reward" in table.columns else 0,
        kl_carried=reward_side.carried_by_kl(signals["non_task_term_share"]),
    )
    return {
        "verdict": verdict,
        "verdict_reason": why,
        "n_steps": int(len(table)),
        "reward_trend": {k: v for k, v in trend.items() if k not in ("evaluable", "curve")},
        "signals": signals,
        "non_finite": non_finite,
        "notes": kl_per_token.notes(table),
        "rules": list(rules.RULES),
        "thresholds": {
            k: getattr(rules, k)
            for k in (
                "WINDOW",
                "SUSTAIN",
                "START_POINTS",
                "MIN_STEPS",
                "HEALTHY_MIN_STEPS",
                "NOISE_K",
                "RANGE_FLOOR",
                "TREND_P",
                "SHIFT_PLATEAU",
                "SHARE",
                "LENGTH_FLOOR",
                "ENTROPY_FLOOR",
                "VAL_MIN_ROUNDS",
                "VAL_RISE",
                "VAL_SUSTAIN",
                "GEN_MIN_SAMPLES",
                "GEN_SHARE",
                "GEN_SUSTAIN",
                "CLIP_SHARE",
            )
        },
    }


def onsets(result: dict[str, Any]) -> dict[str, int]:
    """{signal: onset step} of the signals that hold (the lineage and the plot mark these)."""
    return {n: s["onset_step"] for n, s in result["signals"].items() if s["status"] == rules.HOLDS}
