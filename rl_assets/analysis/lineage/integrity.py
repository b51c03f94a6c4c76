"""Reward-integrity onsets on the run lineage: each onset step between the checkpoints saved before
and after it, beside the steps where behaviour features and audit labels emerged (docs/lineage.md).

A checkpoint saved at step N holds training up to and including step N, so an onset at step s is
after every checkpoint with N < s and before (inside) every checkpoint with N >= s.
"""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.integrity.result import RewardIntegrity


def pick_value(
    candidates: list[tuple[str, RewardIntegrity | None]], curves_from: str | None
) -> tuple[str | None, RewardIntegrity | None]:
    """The reward_integrity result of the checkpoint whose logs gave the curves, else the latest applicable one."""
    usable = [(repo, v) for repo, v in candidates if v is not None and v.applicable]
    for repo, value in usable:
        if repo == curves_from:
            return repo, value
    return usable[-1] if usable else (None, None)


def between(step: int, members: list[dict[str, Any]]) -> dict[str, Any]:
    """The member checkpoints saved before an onset and the first one saved at or after it."""
    before = [m for m in members if m["step"] < step]
    after = [m for m in members if m["step"] >= step]
    return {
        "before": before[-1]["repo_id"] if before else None,
        "before_step": before[-1]["step"] if before else None,
        "after": after[0]["repo_id"] if after else None,
        "after_step": after[0]["step"] if after else None,
    }


def emergence_points(features: list[dict[str, Any]], families: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where a behaviour feature became significant and where an audit change label first appeared."""
    out = [
        {"kind": "behaviour", "what": f"{f['feature']} {f['direction']}d", "step": f["first_step"]}
        for f in features
        if f.get("first_step")
    ]
    out += [
        {
            "kind": "audit label",
            "what": f"{fam['family']}: {fam['label_path']['label']}",
            "step": fam["label_path"]["at_step"],
        }
        for fam in families
        if fam["label_path"].get("label")
    ]
    return out


def integrity_lineage(
    candidates: list[tuple[str, RewardIntegrity | None]],
    curves_from: str | None,
    members: list[dict[str, Any]],
    features: list[dict[str, Any]],
    families: list[dict[str, Any]],
) -> dict[str, Any]:
    """{source, verdict, onsets [{signal, step, before, after}], events: onsets and emergence points by step}."""
    source, value = pick_value(candidates, curves_from)
    points = emergence_points(features, families)
    if value is None:
        why = "no checkpoint of the job has a reward_integrity verdict (no training logs, or not materialized)"
        return {
            "source": None,
            "verdict": None,
            "reason": why,
            "onsets": [],
            "events": sorted(points, key=lambda e: (e["step"], e["kind"])),
        }
    onsets = [
        {"signal": signal, "step": step, **between(step, members)}
        for signal, step in sorted(value.onsets().items(), key=lambda kv: (kv[1], kv[0]))
    ]
    events = points + [{"kind": "integrity onset", "what": o["signal"], "step": o["step"]} for o in onsets]
    return {
        "source": source,
        "verdict": value.verdict(),
        "reason": value.reason(),
        "onsets": onsets,
        "events": sorted(events, key=lambda e: (e["step"], e["kind"], e["what"])),
    }
