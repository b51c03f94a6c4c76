"""Platform concept -> metric key (docs/formats.md, metric keys and aliases). Per row, the first
key present wins, so a run whose logger switched key names mid-way still gets one continuous
canonical column."""

from __future__ import annotations

import pandas as pd

ALIASES: dict[str, tuple[str, ...]] = {
    "reward": (
        "reward/avg_raw_reward",
        "loss/avg_final_rewards",
        "loss/avg_raw_rewards",
        "avg_final_rewards",  # "avg_final_rewards: ..." advantage line (2026)
        "avg_raw_rewards",  # "avg_raw_rewards: ..." advantage line (2025)
        "generation/avg_reward",  # CTU fork "Generation rewards - Avg:"
    ),
    "kl": ("policy/policy_kl", "policy_kl", "loss/avg_kl"),
    "grad_norm": ("policy/raw_grad_norm", "policy/grad_norm", "raw_grad_norm", "grad_norm"),
    "entropy": ("policy/policy_entropy", "policy_entropy"),
    "policy_loss": ("policy/policy_loss", "policy_loss"),
    "response_length": (
        "generate/avg_num_tokens",
        "policy/response_length",
        "response_length",
        "avg_response_length",
    ),
    "log_ratio_abs_max": ("policy/log_ratio_abs_max", "log_ratio_abs_max"),
    "log_ratio_abs_mean": ("policy/log_ratio_abs_mean", "log_ratio_abs_mean", "policy/tis/log_ratio_abs_mean"),
}
CANONICAL = tuple(ALIASES)
RAW_SUFFIX = "__raw"  # a raw key spelled like a canonical column (legacy 'policy_loss') is kept here


def apply_aliases(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[str, int]]]:
    """Add canonical columns; return (frame, {canonical: {source key: rows it supplied}})."""
    frame = frame.rename(columns={c: c + RAW_SUFFIX for c in CANONICAL if c in frame.columns})
    sources: dict[str, dict[str, int]] = {}
    new_cols = {}
    for concept, keys in ALIASES.items():
        value = pd.Series(float("nan"), index=frame.index, dtype="float64")
        used: dict[str, int] = {}
        for key in keys:
            col = key + RAW_SUFFIX if key in CANONICAL else key
            if col not in frame.columns:
                continue
            fill = value.isna() & frame[col].notna()
            if fill.any():
                used[key] = int(fill.sum())
                value = value.where(~fill, frame[col])
        new_cols[concept] = value
        sources[concept] = used
    return frame.assign(**new_cols), sources
