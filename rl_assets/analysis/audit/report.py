"""audit.json / audit.md: the audit rows plus pre-registration, rules and thresholds.

The JSON keeps the keys of the hand-written audit's analysis.json (pre_registration, held,
families, rows with family/prediction/held/reward_before/...), so people who read that file can
read this one.
"""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.audit import exploit_rules, labels, rulers
from rl_assets.analysis.audit.compliance import compliance_section
from rl_assets.analysis.audit.contrastive_report import contrastive_section
from rl_assets.analysis.audit.prereg import prediction_held
from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import (
    ERROR_RATES,
    Report,
    bullet_list,
    fmt_ci,
    fmt_num,
    fmt_p,
    fmt_pct,
    json_text,
    jsonable,
)
from rl_assets.values.escape import md_table

NOT_RUN = "llm audit not run: {reason}"


def build_report(
    rows: list[dict[str, Any]],
    *,
    predictions: dict[str, str] | None = None,
    registration: dict[str, Any] | None = None,
    sources: dict[str, Any] | None = None,
    llm_note: str | None = None,
    pairing: dict[str, Any] | None = None,
    format_compliance: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    for row in rows:
        pred = (predictions or {}).get(row["family"])
        held, why = prediction_held(pred, row) if pred else (None, "no prediction")
        row.update(prediction=pred, held=held, held_reason=why)
        if "audit_verdict" not in row:  # the LLM step did not run at all: say so per row
            row["audit_verdict"] = None
            row["audit_explanation"] = NOT_RUN.format(reason=llm_note or "not requested")
    report: dict[str, Any] = jsonable(
        {
            "sources": sources or {},
            "pre_registration": registration,
            "predictions": len(predictions or {}),
            "predictions_without_family": sorted(set(predictions or {}) - {r["family"] for r in rows}),
            "held": sum(r["held"] is True for r in rows),
            "judged": sum(r["held"] is not None for r in rows),
            "families": len(rows),
            "pairing": pairing,
            "format_compliance": format_compliance or [],
            "ruler_dependent": ruler_dependent(rows),
            "rules": list(labels.RULES),
            "contrastive_rules": dict(exploit_rules.RULES),
            "thresholds": {
                "min_tasks": labels.MIN_TASKS,
                "margin": labels.MARGIN,
                "high_imitation": labels.HIGH_IMITATION,
                "imitation_rise": labels.IMITATION_RISE,
                "mostly_format": labels.MOSTLY_FORMAT,
                "some_format": labels.SOME_FORMAT,
                "exploited_share": labels.EXPLOITED_SHARE,
                "min_new_passes": labels.MIN_NEW_PASSES,
            },
            "rows": rows,
        }
    )
    return report


def ruler_dependent(rows: list[dict[str, Any]]) -> list[str]:
    """Families whose label would differ under the other ruler (docs/audit.md, "Two rulers")."""
    return [r["family"] for r in rows if (r.get("rulers") or {}).get("depends_on_ruler")]


def _label_cell(r: dict[str, Any]) -> str:
    flag = " ⚠ depends on the ruler" if (r.get("rulers") or {}).get("depends_on_ruler") else ""
    return f"**{r['label']}**{flag}"


def _under(side: dict[str, Any] | None) -> tuple[str, str]:
    """("before → after (95% CI of the change)", "label") under one ruler, dashes when absent."""
    if side is None:
        return "—", "—"
    g = side["reward_gain"]
    ci = fmt_ci(g["lo"], g["hi"], signed=True) if "lo" in g else "not enough data"
    return f"{fmt_num(side['reward_before'])} → {fmt_num(side['reward_after'])} {ci}", side["label"]


def rulers_table(rows: list[dict[str, Any]]) -> str:
    """Recorded and re-scored numbers side by side per family: the table under "Two rulers"."""

    def cells(r: dict[str, Any]) -> list[Any]:
        ru = r["rulers"]
        rec, res = _under(ru[rulers.RECORDED]), _under(ru[rulers.RESCORED])
        mis = ru["disagreeing_attempts"]
        dis = f"{mis['before']}/{mis['before_attempts']} → {mis['after']}/{mis['after_attempts']}" if mis else "—"
        dep = {True: "**yes**", False: "no"}.get(ru["depends_on_ruler"], "— (one ruler)")
        return [md_text(r["family"]), ru["label_ruler"], *rec, *res, dis, dep]

    return md_table(
        [
            "family",
            "label uses",
            "recorded before → after [95% CI of change]",
            "label (recorded)",
            "re-scored before → after [95% CI of change]",
            "label (re-scored)",
            "attempts scored differently (before → after)",
            "label depends on the ruler",
        ],
        [cells(r) for r in rows],
        align="llllllrl",
    )


def _rulers_section(rows: list[dict[str, Any]]) -> list[str]:
    dependent = ruler_dependent(rows)
    verdict = (
        f"The label of {', '.join(dependent)} depends on the ruler."
        if dependent
        else "No family's label depends on the ruler."
    )
    return [
        "## Two rulers",
        "",
        "Each family is measured with the scores its source recorded and, where reasoning-gym "
        "can regenerate its tasks, re-scored with the installed scorer; the label uses the "
        f"re-score because {rulers.WHY_RESCORED}. {verdict}",
        "",
        rulers_table(rows),
        "",
    ]


def summary_table(rows: list[dict[str, Any]]) -> str:
    """One line per family: the table shown in the Dagster UI and at the top of audit.md."""

    def baseline(r: dict[str, Any]) -> str:
        b = r.get("baseline")
        return f"{b['strategy']} ({fmt_num(b['score'])})" if b else "n/a"

    return md_table(
        [
            "family",
            "tasks",
            "reward before → after",
            "p",
            "accuracy before → after",
            "lenient before → after",
            "best trivial baseline",
            "label",
            "explanation",
        ],
        [
            [
                md_text(r["family"]),
                r["n_tasks"],
                f"{fmt_num(r['reward_before'])} → {fmt_num(r['reward_after'])}",
                fmt_p(r.get("p")),
                f"{fmt_pct(r['accuracy_before'])} → {fmt_pct(r['accuracy_after'])}",
                f"{fmt_num(r['lenient_reward_before'])} → {fmt_num(r['lenient_reward_after'])}",
                baseline(r),
                _label_cell(r),
                r["explanation"],
            ]
            for r in rows
        ],
        align="lrlrllll" + "l",
    )


def _imitation_table(row: dict[str, Any]) -> str:
    return md_table(
        ["strategy", "score", "post-RL answers it (95% CI)", "pre-RL answers it"],
        [
            [
                b["strategy"],
                fmt_num(b["score"]),
                f"{fmt_pct(b['imitation'])} [{fmt_pct(b['imitation_ci'][0])}, {fmt_pct(b['imitation_ci'][1])}]",
                fmt_pct(b["imitation_before"]),
            ]
            for b in row["baselines"]
        ],
        align="lrrr",
    )


def _ruler_bullets(r: dict[str, Any]) -> list[str]:
    ru = r["rulers"]
    out = [f"scorer: {r['scorer']}", f"label ruler: {ru['label_ruler']} — {ru['why']}"]
    out += [f"{name} ruler: {ru[name]['scorer']}" for name in (rulers.RECORDED, rulers.RESCORED) if ru[name]]
    if ru["depends_on_ruler"] is not None:
        other = rulers.RECORDED if ru["label_ruler"] == rulers.RESCORED else rulers.RESCORED
        out.append(f"under the {other} ruler: **{ru[other]['label']}** — {ru[other]['explanation']}")
        out.append(ru["flag"] or f"same label under both rulers (compared on {ru['compared_on']})")
    return out


def audit_report(report: dict[str, Any], title: str) -> Report:
    """The audit folder's files (audit.json, then audit.md) and the per-family table for the UI."""
    files: dict[str, str | bytes] = {"audit.json": json_text(report), "audit.md": render_markdown(report, title)}
    return Report(files=files, summary=summary_table(report["rows"]), plots={})


def render_markdown(report: dict[str, Any], title: str) -> str:
    rows = report["rows"]
    reg = report.get("pre_registration")
    parts = [
        f"# Learning audit: {md_text(title)}",
        "",
        summary_table(rows),
        "",
        ERROR_RATES,
        "",
        *(pairing_section(report["pairing"]) if report.get("pairing") else []),
        *_rulers_section(rows),
        *compliance_section(report.get("format_compliance") or []),
        *contrastive_section(rows),
        "## Pre-registration",
        "",
    ]
    if reg:
        parts += [
            bullet_list(
                [
                    f"file {md_code(reg['path'])}, sha256 {md_code(reg['sha256'])}",
                    md_text(reg["verdict"]),
                    f"{report['held']} of {report['judged']} judged predictions held "
                    f"({report['predictions']} predictions in the file)",
                ]
            ),
            "",
        ]
        parts += [
            md_table(
                ["family", "prediction", "held", "why"],
                [
                    [
                        md_text(r["family"]),
                        md_text(r["prediction"]),
                        {True: "yes", False: "no"}.get(r["held"], "—"),
                        md_text(r["held_reason"]),
                    ]
                    for r in rows
                    if r["prediction"]
                ],
                align="llll",
            ),
            "",
        ]
    else:
        parts += ["No predictions file was given, so nothing here was pre-registered.", ""]
    parts += ["## Rules", "", "Labels are assigned by these rules, in order (first match wins):", ""]
    parts += list(report["rules"]) + [""]
    for r in rows:
        parts += [
            f"## {md_text(r['family'])}: {md_text(r['label'])}",
            "",
            md_text(r["explanation"]),
            "",
            bullet_list(
                [
                    *_ruler_bullets(r),
                    f"reward change: {r['reward_gain']}",
                    f"accuracy McNemar: {r['accuracy_mcnemar']}",
                    f"format part of the gain: {fmt_num(r.get('format_gain'))}; "
                    f"substance (lenient before → after): {fmt_num(r.get('substance_gain'))}",
                    f"audit verdict: {r['audit_verdict'] or '—'} ({r['audit_explanation']})",
                ]
            ),
            "",
        ]
        if r["baselines"]:
            parts += [_imitation_table(r), ""]
    return "\n".join(parts)
