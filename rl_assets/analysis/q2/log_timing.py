"""Step-time breakdown over the SkyRL timer tree (docs/formats.md, timer tree)."""

from __future__ import annotations

from typing import Any

import pandas as pd

PARENTS: dict[str, str | None] = {
    "step": None,
    **dict.fromkeys(
        [
            "generate",
            "wait_for_generation_buffer",
            "postprocess_generator_output",
            "convert_to_training_input",
            "run_training",
            "sync_weights",
        ],
        "step",
    ),
    **dict.fromkeys(
        [
            "fwd_logprobs_values_reward",
            "apply_reward_kl_penalty",
            "compute_advantages_and_returns",
            "train_critic_and_policy",
        ],
        "run_training",
    ),
    **dict.fromkeys(["critic_train", "policy_train", "policy_critic_overlap_train"], "train_critic_and_policy"),
    "cleanup_old_checkpoints": "save_checkpoints",
    # roots outside a step
    **dict.fromkeys(
        ["init_weight_sync_state", "save_checkpoints", "save_hf_model", "eval", "update_ref_with_policy"], None
    ),
}


def _nearest_parent(name: str, present: set[str]) -> str | None:
    """Walk up the tree to the closest ancestor that was recorded (2025 logs have no run_training,
    so policy_train is then measured against step)."""
    parent = PARENTS.get(name)
    while parent is not None and parent not in present:
        parent = PARENTS.get(parent)
    return parent


def timing_breakdown(steps: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows: timer, parent, steps recorded, mean/total seconds, share of the nearest recorded parent
    (over the parent's steps, a step that skipped the child counts 0), plus one ``unattributed`` or
    ``overlap`` row per parent. Timers not in the tree are listed without a share."""
    cols = {c[len("timing/") :]: c for c in steps.columns if c.startswith("timing/")}
    present = set(cols)
    rows: list[dict[str, Any]] = []
    children: dict[str, list[float]] = {}  # parent timer -> its recorded children's totals
    for name in sorted(present, key=lambda n: (n != "step", n)):
        series = steps[cols[name]]
        parent = _nearest_parent(name, present) if name in PARENTS else None
        row = {
            "timer": name,
            "parent": parent,
            "declared": name in PARENTS,
            "steps": int(series.notna().sum()),
            "mean_s": float(series.mean()) if series.notna().any() else None,
            "total_s": float(series.sum()),
            "share_of_parent": None,
        }
        if parent is not None:
            mask = steps[cols[parent]].notna()
            parent_total = float(steps.loc[mask, cols[parent]].sum())
            child_total = float(series[mask].fillna(0).sum())
            row["share_of_parent"] = child_total / parent_total if parent_total > 0 else None
            children.setdefault(parent, []).append(child_total)
        rows.append(row)
    for parent, totals in children.items():
        mask = steps[cols[parent]].notna()
        parent_total = float(steps.loc[mask, cols[parent]].sum())
        if parent_total <= 0:
            continue
        gap = parent_total - sum(totals)
        rows.append(
            {
                "timer": "unattributed" if gap >= 0 else "overlap",
                "parent": parent,
                "declared": False,
                "steps": int(mask.sum()),
                "mean_s": abs(gap) / max(int(mask.sum()), 1),
                "total_s": abs(gap),
                "share_of_parent": abs(gap) / parent_total,
            }
        )
    return rows
