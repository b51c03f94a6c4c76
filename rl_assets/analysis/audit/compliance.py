"""Format compliance as its own finding: per task family, the share of attempts with no extractable
answer before and after RL, beside accuracy (issue 35).

"Answer extraction up, accuracy flat" is a result a team needs: RL often teaches the output format
first. The answer is the one the source recorded (the eval toolkit's extraction: Qwen2.5-Math
``pred``, lm-eval ``filtered_resps``, reasoning-gym ``model_answer``); none, blank or lm-eval's
``[invalid]`` is "no extractable answer". Counted over the attempts of the tasks both sides
attempted (the audit's common tasks), so a change of task mix is not read as a change of format.
Intervals are Wilson per side and Newcombe for the change, at the attempt level: attempts of one
task are not independent, so with several attempts per task they are narrower than a task-level
interval would be (the table says how many attempts per task).
"""

from __future__ import annotations

from typing import Any

from rl_assets.analysis import stats
from rl_assets.analysis.audit.tasks import Family, TaskKey
from rl_assets.analysis.render.escape import md_text
from rl_assets.analysis.render.report_md import fmt_pct
from rl_assets.values.answers import no_answer
from rl_assets.values.escape import md_table

NOT_RECORDED = "no answer recorded on either side (the source keeps no extracted answer)"


def _side(fam: Family, side: str, keys: list[TaskKey]) -> dict[str, Any]:
    attempts = [a for k in keys for a in getattr(fam, side).get(k, [])]
    missing = sum(no_answer(a.answer) for a in attempts)
    scored = [a.recorded for a in attempts if a.recorded is not None]
    right = sum(r >= 1.0 for r in scored)
    lo, hi = stats.wilson_interval(missing, len(attempts)) if attempts else (None, None)
    return {
        "attempts": len(attempts),
        "no_answer": missing,
        "no_answer_share": missing / len(attempts) if attempts else None,
        "no_answer_ci": [lo, hi],
        "scored": len(scored),
        "accuracy": right / len(scored) if scored else None,
        "correct": right,
        "recorded_any": any(a.answer is not None for a in attempts),
    }


def family_compliance(fam: Family) -> dict[str, Any]:
    """One family's row: before, after, the change in the no-answer share with its interval."""
    keys = fam.common
    before, after = _side(fam, "before", keys), _side(fam, "after", keys)
    row = {"family": fam.name, "tasks": len(keys), "before": before, "after": after}
    if not keys:
        return {**row, "applicable": False, "note": "no task on both sides"}
    if not (before["recorded_any"] or after["recorded_any"]):
        return {**row, "applicable": False, "note": NOT_RECORDED}
    change, lo, hi = stats.two_proportion_diff_ci(
        before["no_answer"], before["attempts"], after["no_answer"], after["attempts"]
    )
    return {**row, "applicable": True, "change": change, "change_ci": [lo, hi], "significant": lo > 0 or hi < 0}


def format_compliance(families: dict[str, Family]) -> list[dict[str, Any]]:
    return [family_compliance(families[name]) for name in sorted(families)]


def _share(side: dict[str, Any]) -> str:
    if side["no_answer_share"] is None:
        return "—"
    lo, hi = side["no_answer_ci"]
    return f"{side['no_answer']}/{side['attempts']} = {fmt_pct(side['no_answer_share'])} [{fmt_pct(lo)}, {fmt_pct(hi)}]"


def _acc(side: dict[str, Any]) -> str:
    return "—" if side["accuracy"] is None else f"{fmt_pct(side['accuracy'])} ({side['correct']}/{side['scored']})"


def compliance_table(rows: list[dict[str, Any]]) -> str:
    body = []
    for r in rows:
        if not r["applicable"]:
            body.append([md_text(r["family"]), r["tasks"], "—", "—", md_text(r["note"]), "—", "—"])
            continue
        lo, hi = r["change_ci"]
        change = f"{r['change'] * 100:+.1f} pts [{lo * 100:+.1f}, {hi * 100:+.1f}]" + (" *" if r["significant"] else "")
        body.append(
            [md_text(r["family"]), r["tasks"], _share(r["before"]), _share(r["after"]), change]
            + [_acc(r["before"]), _acc(r["after"])]
        )
    return md_table(
        [
            "family",
            "common tasks",
            "no answer before",
            "no answer after",
            "change (95% CI)",
            "accuracy before",
            "accuracy after",
        ],
        body,
        align="lrrrrrr",
    )


def compliance_section(rows: list[dict[str, Any]]) -> list[str]:
    """The audit.md section (empty when no family has rows)."""
    if not rows:
        return []
    per_task = {r["family"]: r["after"]["attempts"] / r["tasks"] for r in rows if r["tasks"] and r["after"]["attempts"]}
    several = sorted(f for f, n in per_task.items() if n > 1)
    return [
        "## Format compliance",
        "",
        "Attempts with no extractable answer (the answer the eval recorded is missing, blank or `[invalid]`), "
        "on the tasks both checkpoints attempted, beside accuracy (recorded reward 1.0). Wilson 95% intervals per "
        "side, Newcombe for the change; * = the interval excludes 0. A falling no-answer share with flat accuracy "
        "is a format gain, not a skill gain.",
        "",
        compliance_table(rows),
        "",
        *(
            [
                f"Several attempts per task in {', '.join(md_text(f) for f in several)}: the attempt-level intervals "
                "are narrower than task-level ones.",
                "",
            ]
            if several
            else []
        ),
    ]
