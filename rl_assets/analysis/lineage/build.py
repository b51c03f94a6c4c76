"""build_lineage(): one RL job's checkpoints, in step order, and when each change emerged.

Pure: the values the member checkpoints' assets stored (plus, optionally, their post-RL trace
tables for step-to-step tests and the job's rollouts) in, one JSON-able dict out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.audit.result import LearningAudit
from rl_assets.analysis.integrity.result import RewardIntegrity
from rl_assets.analysis.lineage.curves import at_checkpoints, job_curves
from rl_assets.analysis.lineage.emergence import feature_lineage
from rl_assets.analysis.lineage.families import family_lineage
from rl_assets.analysis.lineage.integrity import integrity_lineage
from rl_assets.analysis.lineage.members import select_members, stored_as
from rl_assets.analysis.lineage.resolution import resolution_note
from rl_assets.analysis.lineage.rollouts import rollout_windows
from rl_assets.analysis.lineage.steps import training_step
from rl_assets.analysis.q1.paired_deltas import ALPHA
from rl_assets.analysis.render.report_md import jsonable

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd


def judge_summary(judge: dict[str, Any] | None) -> dict[str, Any] | None:
    """Post-RL win rate over decisive pairs per probe (Wilson 95%), when the judge ran."""
    if not judge:
        return None
    probes = {}
    for name, p in (judge.get("probes") or {}).items():
        win, wins = p.get("post_rl_win_rate_decisive") or {}, p.get("win") or {}
        decisive = sum((wins.get(side) or {}).get("count", 0) for side in ("post-rl", "baseline"))
        probes[name] = {
            "win_rate": win.get("share"),
            "ci": win.get("wilson95"),
            "decisive": decisive,
            "judged": p.get("judged"),
        }
    return {"judge": judge.get("judge"), "probes": probes, "parse_failure_rate": judge.get("parse_failure_rate")}


def member_summary(m: dict[str, Any]) -> dict[str, Any]:
    d, v = m["values"]["behavioral_delta"], m["values"]
    paired = (d.get("paired") or {}).get("passed") or {}
    audit = stored_as(v, LearningAudit)
    return {
        "repo_id": m["repo_id"],
        "step": m["step"],
        "step_source": m["step_source"],
        "revision": m["revision"],
        "post_rl_eval": m["post_rl_eval"],
        "common_tasks": d.get("common_tasks"),
        "solve_rate": d["after"]["solve_rate"],
        "base_solve_rate": d["before"]["solve_rate"],
        "solve_rate_delta": {
            k: paired.get(k) for k in ("before", "after", "estimate", "lo", "hi", "p_value", "reason")
        },
        "judge": judge_summary(v.get("judge_verdicts")),
        "labels": audit.labels() if audit else {},
    }


def gamed_answers(members: list[dict[str, Any]]) -> dict[str, str]:
    """Families the latest audited checkpoint calls gamed, with the constant answer it imitates."""
    for m in reversed(members):
        audit = stored_as(m["values"], LearningAudit)
        rows = audit.rows() if audit else []
        if rows:
            out = {}
            for r in rows:
                best = max(r.get("baselines") or [], key=lambda b: b.get("imitation") or 0, default=None)
                if r.get("label") == "gamed" and best and best.get("constant_answer") is not None:
                    out[r["family"]] = best["constant_answer"]
            return out
    return {}


def build_lineage(
    job: str,
    stored: Mapping[str, Mapping[str, Any]],
    *,
    tables: dict[str, Any] | None = None,
    rollouts: tuple[pd.DataFrame, str] | None = None,
    benchmark: str | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """The lineage of `job` from every model partition's stored values (see members.select_members)."""
    from rl_assets.analysis.lineage.report_summary import summary_lines

    sel = select_members(job, stored, benchmark)
    members = sel["members"]
    features, steps = feature_lineage(members, tables or {}, n_boot, seed)
    families, audit_missing = family_lineage(members)
    in_job = [
        (training_step(m, v["checkpoint"].get("rl_config"))[0], m, v)
        for m, v in stored.items()
        if (v.get("checkpoint") or {}).get("job_name") == job
    ]
    in_order = sorted(in_job, key=lambda t: (t[0] is None, t[0] or 0, t[1]))
    job_models = [(m, v.get("training_metrics")) for s, m, v in in_order]
    curves, curves_from, note = job_curves(job_models)
    looks = (
        ("behaviour features vs the base (Q1's stored p)", [c for f in features for c in f["cells"]]),
        ("behaviour features step to step", [c for s in steps for c in (s.get("features") or {}).values()]),
        ("family reward change vs the base (the audit's stored p)", [c for f in families for c in f["cells"]]),
    )
    result = {
        "job": job,
        "alpha": ALPHA,
        "n_boot": n_boot,
        "seed": seed,
        "pinned": sel["pinned"],
        "members": [member_summary(m) for m in members],
        "excluded": sel["excluded"],
        "features": features,
        "steps": steps,
        "families": families,
        "audit_missing": audit_missing,
        "resolution": [n for what, cells in looks if (n := resolution_note(cells, what, ALPHA))],
        "curves": {
            "source": curves_from,
            "note": note,
            "data": curves,
            "at_checkpoints": at_checkpoints(curves, [m["step"] for m in members]) if curves else [],
        },
    }
    result["integrity"] = integrity_lineage(
        [(m, stored_as(v, RewardIntegrity)) for s, m, v in in_order], curves_from, result["members"], features, families
    )
    if rollouts is None:
        result["rollouts"] = {"applicable": False, "reason": "no RL rollout dataset for this job"}
    else:
        result["rollouts"] = rollout_windows(rollouts[0], curves, gamed_answers(members), rollouts[1], seed=seed)
    result["summary"] = summary_lines(result)
    as_json: dict[str, Any] = jsonable(result)
    return as_json
