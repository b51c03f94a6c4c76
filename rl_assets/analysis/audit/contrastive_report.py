"""audit.md's "Newly passing tasks: earned or exploited?" section (numbers from contrastive.py).

Task names, answers and evidence excerpts come from traces: they pass through the one escaping
rule (md_text / md_code) and md_table, never raw.
"""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.audit import exploit_rules, labels
from rl_assets.analysis.audit.contrastive import MIN_NEW_PASSES
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import fmt_num, fmt_pct
from rl_assets.values.escape import md_table

MAX_LISTED = 25  # flagged tasks listed per family (the JSON holds all)


def share_cell(check: dict[str, Any]) -> str:
    if check["share"] is None:
        return f"{check['flagged']}/{check['newly_passing']} (not enough data)"
    lo, hi = check["share_ci"]
    return f"{check['flagged']}/{check['newly_passing']} = {fmt_pct(check['share'])} [{fmt_pct(lo)}, {fmt_pct(hi)}]"


def _side(side: dict[str, Any]) -> str:
    answer = md_code(side["answer"]) if side["answer"] is not None else "—"
    return f"{fmt_num(side['reward'])}, answer {answer}, {side['tool_calls']} tool calls, {side['words']} words"


def _opinion(task: dict[str, Any]) -> str:
    op = task.get("second_opinion")
    if not op:
        return "—"
    return md_text(f"{op['verdict']} ({op['judge']}): {op['explanation']}")


def contrastive_summary(rows: list[dict[str, Any]]) -> str:
    """Per family: newly passing tasks, the flagged share and its rules (audit.md and the UI)."""
    checked = [r for r in rows if r.get("contrastive")]
    return md_table(
        ["family", "newly passing", "flagged (95% CI)", "by rule", "second opinion agrees"],
        [
            [
                md_text(r["family"]),
                r["contrastive"]["newly_passing"],
                share_cell(r["contrastive"]),
                ", ".join(f"{k} {v}" for k, v in sorted(r["contrastive"]["by_rule"].items())) or "—",
                _agreement(r["contrastive"]),
            ]
            for r in checked
        ],
        align="lrrll",
    )


def _agreement(check: dict[str, Any]) -> str:
    n = check.get("second_opinions")
    if n is None:
        return "not run"
    return f"{check['second_opinion_agrees']}/{n} (orders disagree on {check['orders_disagree']})"


def null_model_section(checked: list[dict[str, Any]]) -> list[str]:
    """Every repeated answer the over-use test was run on, and the no-work test, with their numbers: the
    mixed cases (over-used, yet the gain survives without it) are measured here, not assumed."""
    lines = [
        [md_text(r["family"]), md_code(u["answer"]), _use_verdict(u), md_text(u["evidence"])]
        for r in checked
        for u in r["contrastive"].get("answer_use", [])
    ]
    lines += [
        [
            md_text(r["family"]),
            "(short answers)",
            "no work" if gate["rejects_knowing"] else "not no work",
            md_text(gate["evidence"]),
        ]
        for r in checked
        if (gate := r["contrastive"].get("no_work_null")) and gate["attempts"]
    ]
    if not lines:
        return []
    return [
        "### Null models: repeated answers and short answers",
        "",
        "Each answer the post-RL model gives on several tasks, tested against how often the expected answers "
        "contain it, and how much of the gain goes with it; short unreasoned answers against blind answering. "
        "Only a rejected null model lets a rule flag a pass; the error rates of these rules on real runs are "
        "in docs/validity.md.",
        "",
        md_table(["family", "answer", "verdict", "evidence"], lines, align="llll"),
        "",
    ]


def _use_verdict(use: dict[str, Any]) -> str:
    if use["overused"]:
        return "over-used; its passes are flagged" + (
            "" if use["carries_gain"] else " (most of the gain survives without it)"
        )
    return "not over-used" if use["expected_share"] is not None else "not tested"


def contrastive_section(rows: list[dict[str, Any]]) -> list[str]:
    parts = [
        "## Newly passing tasks: earned or exploited?",
        "",
        "A task newly passes when most baseline attempts failed and most post-RL attempts passed "
        f"(recorded reward >= 1.0). Each passing post-RL attempt is read by these rules; a task is flagged "
        "by a rule that fires on at least half of its passing attempts. The share has a Wilson 95% CI, "
        f"and no share is claimed under {MIN_NEW_PASSES} newly passing tasks. Label rule 2b uses it: "
        f">= {labels.EXPLOITED_SHARE:.0%} flagged -> gamed. The second opinion (when the audit's LLM step "
        "runs) reads the baseline and post-RL traces of up to 10 newly passing tasks per family, flagged first, "
        'in both orders; its verdict stands only when both orders agree. "Second opinion agrees" counts '
        "judged tasks whose verdict (exploited / earned) matches the rules' flag; the judge column names the "
        "model, or the offline heuristic, which only restates the rules.",
        "",
    ]
    parts += [f"- `{name}`: {md_text(text)}" for name, text in exploit_rules.RULES.items()] + [""]
    checked = [r for r in rows if r.get("contrastive")]
    parts += [contrastive_summary(rows), ""]
    parts += null_model_section(checked)
    for r in checked:
        flagged = [t for t in r["contrastive"]["tasks"] if t["rules"]]
        if not flagged:
            continue
        parts += [f"### {md_text(r['family'])}: flagged newly passing tasks", ""]
        parts += [
            md_table(
                [
                    "task",
                    "rule",
                    "evidence",
                    "baseline (reward, answer, work)",
                    "post-RL (reward, answer, work)",
                    "second opinion",
                ],
                [
                    [
                        md_text(t["task"]),
                        ", ".join(t["rules"]),
                        "; ".join(md_code(t["evidence"][rule]) for rule in t["rules"]),
                        _side(t["baseline"]),
                        _side(t["post_rl"]),
                        _opinion(t),
                    ]
                    for t in flagged[:MAX_LISTED]
                ],
                align="llllll",
            ),
            "",
        ]
        if len(flagged) > MAX_LISTED:
            parts += [f"({len(flagged) - MAX_LISTED} more in audit.json)", ""]
    return parts
