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
