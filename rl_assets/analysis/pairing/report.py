"""The pairing table every comparison report shows (Q1, the learning audit, the model comparison).

Rendered from ``Pairing.report`` (rl_assets/analysis/pairing/pairs.py): per family or benchmark, tasks
paired, only before, only after, how they were paired, examples of unpaired ids; then a near-miss
normalisation when there is one, and generation settings that differ between the sides.
"""

from __future__ import annotations

from typing import Any

from rl_assets.values.escape import md_code, md_table, md_text
from rl_assets.values.results import CheckVerdict

# The two pairing checks Q1 (`behavioral_delta`) and the learning audit both declare
# (rl_assets/support/pairing_checks.py holds their specs); both WARN: the numbers are right for the
# tasks that did pair, but a reader must know which tasks were left out and why.
IDS_PAIR = "task_ids_pair"
SAME_SETTINGS = "same_generation_settings"


def _how(how: dict[str, int]) -> str:
    return ", ".join(f"{n} by {src}" for src, n in sorted(how.items())) or "—"


def _examples(ids: list[str]) -> str:
    return ", ".join(md_code(i) for i in ids) or "—"


def collision_line(g: dict[str, Any]) -> str:
    """Distinct task ids that share one pairing key on a side (the same question, or ids one stated
    normalisation maps together): said, since the paired statistics count each such key as one task."""
    examples = "; ".join(" = ".join(md_code(i) for i in ids[:3]) for ids in g.get("examples_collision", []))
    return (
        f"**{md_text(g['group'])}:** task-id collision: {g.get('collisions_before', 0)} pairing key(s) on the baseline "
        f"side and {g.get('collisions_after', 0)} on the post-RL side each hold more than one task id (the same "
        f"question, normalised); each is counted as one task (e.g. {examples})."
    )


def near_miss_line(near: dict[str, Any] | None) -> str | None:
    if not near:
        return None
    pairs = "; ".join(f"{md_code(b)} ↔ {md_code(a)}" for b, a in near["examples"])
    return (
        f"**Near-miss task ids:** only {near['paired']} of {near['of']} tasks pair as written, but "
        f"normalising ids by {', '.join(near['rules'])} would pair {near['would_pair']} (e.g. {pairs}). "
        f"Not applied: set `task_id_normalisation: {near['rules']}` on the `settings` resource to apply it."
    )


def settings_lines(differ: list[dict[str, Any]]) -> list[str]:
    if not differ:
        return ["Generation settings: no recorded difference between the sides."]
    return [
        "**Generation settings differ** (a setting change can masquerade as learning):",
        "",
        md_table(
            ["setting", "before", "after"],
            [[md_text(d["setting"]), md_text(d["before"]), md_text(d["after"])] for d in differ],
            align="lll",
        ),
    ]


def pairing_section(
    report: dict[str, Any], heading: str = "## Task pairing", group: str = "family / benchmark"
) -> list[str]:
    """Markdown lines of the pairing table, its rule, near misses and setting differences."""
    rows = [
        [
            md_text(g["group"]),
            g["paired"],
            g["only_before"],
            g["only_after"],
            md_text(_how(g["how"])),
            md_text(g["status"]),
            _examples(g["examples_only_before"]),
            _examples(g["examples_only_after"]),
        ]
        for g in report["groups"]
    ]
    t = report["totals"]
    lines = [
        heading,
        "",
        f"Identity: {md_text(report['rule'])}. Paired statistics use paired tasks only; "
        "a task seen on one side is listed here, never counted as a regression.",
        "",
        md_table(
            [
                group,
                "paired",
                "only before",
                "only after",
                "how paired",
                "status",
                "e.g. only before",
                "e.g. only after",
            ],
            rows,
            align="lrrrllll",
        )
        if rows
        else "No tasks on either side.",
        "",
        f"Total: {t['paired']} paired, {t['only_before']} only before, {t['only_after']} only after.",
        "",
    ]
    for g in report["groups"]:
        if g.get("same_id_other_question"):
            lines += [
                f"**{md_text(g['group'])}:** {g['same_id_other_question']} task ids are on both sides with a "
                "different question (the generator or its prompt template changed between the files); they are "
                "different tasks to the model, so they are not paired.",
                "",
            ]
        if g.get("collisions_before") or g.get("collisions_after"):
            lines += [collision_line(g), ""]
    near = near_miss_line(report.get("near_miss"))
    if near:
        lines += [near, ""]
    if report.get("normalisation"):
        lines += [
            f"Task ids normalised by {', '.join(report['normalisation'])} (settings `task_id_normalisation`).",
            "",
        ]
    return lines + settings_lines(report["settings_differ"]) + [""]


def pairing_verdicts(report: dict[str, Any]) -> list[CheckVerdict]:
    """`task_ids_pair` (fails when a stated normalisation would pair most tasks the raw ids leave
    unpaired) and `same_generation_settings` (fails when the sides recorded different settings)."""
    near, differ, totals = report.get("near_miss"), report["settings_differ"], report["totals"]
    applied = report.get("normalisation") or []
    ids = CheckVerdict(
        IDS_PAIR,
        passed=near is None,
        warn=True,
        description=near_miss_line(near)
        or (f"task ids normalised by {', '.join(applied)}" if applied else "no near-miss task ids"),
        metadata={
            **totals,
            "normalisation": ", ".join(applied) or "none",
            "would_pair": near["would_pair"] if near else totals["paired"],
        },
    )
    settings = CheckVerdict(
        SAME_SETTINGS,
        passed=not differ,
        warn=True,
        description="; ".join(f"{d['setting']}: {d['before']} before, {d['after']} after" for d in differ)
        or "no recorded setting differs",
        metadata={"differing": ", ".join(d["setting"] for d in differ) or "none"},
    )
    return [ids, settings]
