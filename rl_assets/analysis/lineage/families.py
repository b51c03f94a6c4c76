"""Task families across a run's checkpoints: the audit label path and when the reward change emerged.

Per (family, checkpoint): the learning audit's label, reward before/after with the paired change,
format and substance parts of the gain, and the strongest imitation of a trivial strategy. A
label *emerges* at the first checkpoint whose label names a change (CHANGE_LABELS) and *persists*
when every later checkpoint has the same label. The reward change uses the significance rule of
emergence.py (Holm over every (family, checkpoint) cell).
"""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.audit.result import LearningAudit
from rl_assets.analysis.lineage.emergence import emergence, holm_mark
from rl_assets.analysis.lineage.members import stored_as

# Labels that say RL changed something; "no change", "no real gain" (a trivial answer already does as
# well, before and after) and "not enough data" do not.
CHANGE_LABELS = frozenset({"real skill", "skill and format", "mostly format", "gamed", "regressed"})
UNKNOWN = "not enough data"  # a later checkpoint with this label neither keeps nor breaks a label path


def _imitation(row: dict[str, Any]) -> dict[str, Any] | None:
    """The trivial strategy the post-RL model imitates most (its share before and after)."""
    best = max(row.get("baselines") or [], key=lambda b: b.get("imitation") or 0, default=None)
    if best is None:
        return None
    return {
        k: best.get(k)
        for k in ("strategy", "constant_answer", "imitation", "imitation_ci", "imitation_before", "score")
    }


def _cell(member: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    gain = row.get("reward_gain") or {}
    return {
        "repo_id": member["repo_id"],
        "step": member["step"],
        "label": row.get("label"),
        "explanation": row.get("explanation"),
        "n_tasks": row.get("n_tasks"),
        "reward_before": row.get("reward_before"),
        "reward_after": row.get("reward_after"),
        "delta": gain.get("estimate"),
        "lo": gain.get("lo"),
        "hi": gain.get("hi"),
        "p": gain.get("p"),
        "format_gain": row.get("format_gain"),
        "substance_gain": row.get("substance_gain"),
        "lenient_before": row.get("lenient_reward_before"),
        "lenient_after": row.get("lenient_reward_after"),
        "imitation": _imitation(row),
    }


def audit_rows_of(member: dict[str, Any]) -> tuple[list[dict[str, Any]] | None, str | None]:
    audit = stored_as(member["values"], LearningAudit)
    if audit is None:
        return None, "learning_audit not materialized"
    if not audit.has_rows():
        return None, "the stored learning_audit predates per-family rows: re-materialize learning_audit"
    used = audit.post_rl_source()
    if used and used != member["post_rl_eval"]:
        return None, f"learning_audit was computed on {used}, not on {member['post_rl_eval']}: re-materialize it"
    return audit.rows(), None


def label_path(cells: list[dict[str, Any]], steps: list[int] | None = None) -> dict[str, Any]:
    """First checkpoint with a change label, and whether every later checkpoint keeps it (unknown when a
    later member of `steps` has no audit row or says "not enough data")."""
    first = next((i for i, c in enumerate(cells) if c.get("label") in CHANGE_LABELS), None)
    if first is None:
        return {"label": None, "at": None, "at_step": None, "persists": None, "status": "no change label"}
    label, later = cells[first]["label"], cells[first + 1 :]
    out = {"label": label, "at": cells[first]["repo_id"], "at_step": cells[first]["step"]}
    after = [x for x in steps or [] if x > cells[first]["step"]]
    if not later and not after:
        return {**out, "persists": None, "status": "emerged at the last checkpoint (persistence not observable yet)"}
    broken = next((c for c in later if c.get("label") not in (label, UNKNOWN)), None)
    seen = {c["step"]: c for c in later}
    missing = next(
        (
            f"no audit row at step {x}" if x not in seen else f"not enough data at step {x}"
            for x in sorted(set(seen) | set(after))
            if seen.get(x, {}).get("label", UNKNOWN) == UNKNOWN
        ),
        None,
    )
    if broken is None:
        return {
            **out,
            "persists": None if missing else True,
            "status": f"persistence unknown: {missing}" if missing else "persists",
        }
    return {
        **out,
        "persists": False,
        "status": f"became {broken.get('label') or 'unlabelled'} at step {broken['step']}",
    }


def family_lineage(members: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(per family: cells, label path, reward emergence; per member without audit rows: why)."""
    by_family: dict[str, list[dict[str, Any]]] = {}
    missing = []
    for m in members:
        rows, why = audit_rows_of(m)
        if rows is None:
            missing.append({"repo_id": m["repo_id"], "step": m["step"], "reason": why})
            continue
        for row in rows:
            by_family.setdefault(row["family"], []).append(_cell(m, row))
    holm_mark([c for cells in by_family.values() for c in cells])
    steps = [m["step"] for m in members]
    out = [
        {"family": family, "cells": cells, "label_path": label_path(cells, steps), "reward": emergence(cells, steps)}
        for family, cells in sorted(by_family.items())
    ]
    return out, missing
