"""Planted per-step tables for the reward-integrity tests: known onsets by construction."""

from __future__ import annotations

import numpy as np
import pandas as pd


def planted(
    n: int = 60,
    *,
    onset: int | None = 25,
    task_drop: float = 0.1,
    term_jump: float = 0.5,
    length_drop: float = 0.0,
    entropy_drop: float = 0.0,
    noise: float = 0.01,
    seed: int = 0,
    with_task: bool = True,
    with_term: bool = True,
    val_every: int | None = None,
    val_gain: float = 0.0,
) -> pd.DataFrame:
    """Steps 1..n; from `onset` the format term jumps by `term_jump` and the task score drops by
    `task_drop` (step changes, so a centred median places the onset exactly at `onset`)."""
    rng = np.random.default_rng(seed)
    step = np.arange(1, n + 1)
    after = step >= onset if onset is not None else np.zeros(n, bool)
    task = 0.5 - task_drop * after + rng.normal(0, noise, n)
    term = 0.1 + term_jump * after + rng.normal(0, noise, n)
    frame = pd.DataFrame(
        {
            "step": step,
            "reward": task + term,
            "response_length": 400 * (1 - length_drop * after) + rng.normal(0, 2, n),
            "entropy": 0.8 * (1 - entropy_drop * after) + rng.normal(0, 0.005, n),
        }
    )
    if with_task:
        frame["task_score"] = task
    if with_term:
        frame["reward_term/format/format_reward"] = term
    if val_every:
        val = 0.4 + val_gain * after + rng.normal(0, 0.002, n)
        frame["val_score"] = np.where(step % val_every == 0, val, np.nan)
    return frame


def rising_with_task(n: int = 60, seed: int = 1) -> pd.DataFrame:
    """A healthy run: the task score carries the reward up; the format term stays flat."""
    rng = np.random.default_rng(seed)
    step = np.arange(1, n + 1)
    task = 0.2 + 0.6 * step / n + rng.normal(0, 0.01, n)
    term = 0.1 + rng.normal(0, 0.01, n)
    return pd.DataFrame(
        {
            "step": step,
            "reward": task + term,
            "task_score": task,
            "reward_term/format/format_reward": term,
            "response_length": 400 + rng.normal(0, 2, n),
            "entropy": 0.8 + rng.normal(0, 0.005, n),
        }
    )


def generations(rounds: list[int], onset: int | None, samples: int = 6, empty: bool = False) -> pd.DataFrame:
    """Validation generations per round; from `onset` every output is the same answer (or empty)."""
    rows = []
    for step in rounds:
        for i in range(samples):
            bad = onset is not None and step >= onset
            out = ("" if empty else "ANSWER: 0") if bad else f"work {i} for round {step}: answer {i * 7 % 5}"
            rows.append({"step": step, "sample": i, "input": f"question {i}", "output": out, "score": 0.0})
    return pd.DataFrame(rows)


def agent_run(
    n: int = 80,
    *,
    per_call: float = 0.1,
    task_gain: float = 0.0,
    val_every: int | None = 10,
    val_gain: float = 0.0,
    seed: int = 2,
) -> pd.DataFrame:
    """A multi-turn agent run, verl-style: the reward function's score (task_score) IS the reward, and it
    pays `per_call` per tool call beyond the first 2.4 on top of the task accuracy. From step 20 the tool
    calls per trajectory ramp 2.4 -> 4.5 over 20 steps; the accuracy gains `task_gain` over the same ramp;
    val_score (the held-out accuracy) gains `val_gain` from step 20."""
    rng = np.random.default_rng(seed)
    step = np.arange(1, n + 1)
    ramp = np.clip((step - 20) / 20, 0, 1)
    tool_calls = 2.4 + 2.1 * ramp + rng.normal(0, 0.05, n)
    accuracy = 0.3 + task_gain * ramp + rng.normal(0, 0.01, n)
    reward = accuracy + per_call * (tool_calls - 2.4)
    frame = pd.DataFrame(
        {
            "step": step,
            "reward": reward,
            "task_score": reward,
            "tool_calls": tool_calls,
            "entropy": 0.5 + rng.normal(0, 0.005, n),
        }
    )
    if val_every:
        val = 0.25 + val_gain * ramp + rng.normal(0, 0.002, n)
        frame["val_score"] = np.where(step % val_every == 0, val, np.nan)
    return frame


def reasoning_run(n: int = 80, *, val_every: int | None = 10, seed: int = 3) -> pd.DataFrame:
    """Healthy R1-style reasoning RL: one accuracy reward function (so task_score is the reward), the
    responses lengthen as the accuracy climbs, and the held-out accuracy rises with it."""
    rng = np.random.default_rng(seed)
    step = np.arange(1, n + 1)
    progress = step / n
    accuracy = 0.2 + 0.5 * progress + rng.normal(0, 0.015, n)
    frame = pd.DataFrame(
        {
            "step": step,
            "reward": accuracy,
            "task_score": accuracy,
            "reward_term/task/accuracy_reward": accuracy,
            "response_length": 600 + 1800 * progress + rng.normal(0, 30, n),
            "entropy": 0.6 + rng.normal(0, 0.005, n),
        }
    )
    if val_every:
        val = 0.15 + 0.3 * progress + rng.normal(0, 0.003, n)
        frame["val_score"] = np.where(step % val_every == 0, val, np.nan)
    return frame
