"""Q1's reports as content: the behavioural-delta report (markdown + JSON) and the failure-mode
distribution table. Pure: returns text, writes nothing; the assets write it into their report folders."""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.analysis.q1.format_compliance import table as compliance_table
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import (
    Report,
    bullet_list,
    fmt_ci,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_signed,
    json_text,
)
from rl_assets.values.escape import md_table


def behavioral_delta_report(result: dict[str, Any]) -> Report:
    """Q1_behavioral_delta/: report.md (words first, then tables) and report.json (the full result);
    the UI summary is the report's summary bullets."""
    files: dict[str, str | bytes] = {
        "report.md": render_markdown(result, result.get("sources")),
        "report.json": json_text(result),
    }
    return Report(files, bullet_list(result["summary"]), {})


def _signed(x: float | None) -> str:
    return "" if x is None else f"{x:+.3f}"


def failure_mode_table(dist: dict[str, Any]) -> str:
    """Per failure-mode category: count on each side and the share shift (Dagster metadata of `failure_modes`)."""
    return md_table(
        ["category", "baseline", "post-RL", "shift"],
        [
            [c, dist["counts"]["baseline"][c], dist["counts"]["post_rl"][c], _signed(dist["shift"][c])]
            for c in dist["shift"]
        ],
        align="-rrr",
    )


def _feature_table(features: list[dict[str, Any]]) -> str:
    rows = []
    for f in sorted(features, key=lambda f: (not f["significant"], -abs(f.get("effect_size") or 0))):
        if "delta" not in f:
            rows.append(
                [
                    f["feature"],
                    fmt_num(f["before_all_traces"]),
                    fmt_num(f["after_all_traces"]),
                    "—",
                    "—",
                    "—",
                    "—",
                    "—",
                    f"not enough data: {f['not_enough_data']}",
                ]
            )
            continue
        mark = "**yes**" if f["significant"] else ("nominal" if f["ci_excludes_zero"] else "no")
        rows.append(
            [
                f["feature"],
                fmt_num(f["before"]),
                fmt_num(f["after"]),
                fmt_signed(f["delta"]),
                fmt_ci(f["lo"], f["hi"]),
                fmt_num(f["effect_size"], 2),
                fmt_p(f["p"]),
                fmt_p(f["p_holm"]),
                mark,
            ]
        )
    return md_table(["feature", "before", "after", "Δ", "95% CI", "d", "p", "Holm p", "significant"], rows)


def _shift_table(rows: list[dict[str, Any]] | None, what: str) -> str:
    if not rows:
        return f"_No {what} recorded on either side._"
    return md_table(
        [what, "before", "after", "Δ share", "95% CI"],
        [
            [
                md_text(r["key"]),
                f"{r['before']} ({fmt_pct(r['before_share'])})",
                f"{r['after']} ({fmt_pct(r['after_share'])})",
                fmt_pct(r["shift"], signed=True),
                fmt_ci(r["lo"], r["hi"], pct=True, signed=True),
            ]
            for r in rows
        ],
    )


def _macro_table(r: dict[str, Any]) -> str:
    b, a = r["before"], r["after"]

    def reward(side: dict[str, Any], key: str) -> str:
        tc = side[key]["task_clustered"]
        return (
            f"{fmt_num(tc['estimate'])} {fmt_ci(tc['lo'], tc['hi'])}"
            if "estimate" in tc
            else fmt_num(side[key]["mean_rows"])
        )

    rows = [
        ["rows / tasks", f"{b['n_rows']} / {b['n_tasks']}", f"{a['n_rows']} / {a['n_tasks']}"],
        [
            "solve rate (Wilson 95%)",
            f"{fmt_pct(b['solve_rate']['rate'])} {fmt_ci(b['solve_rate']['lo'], b['solve_rate']['hi'], pct=True)}",
            f"{fmt_pct(a['solve_rate']['rate'])} {fmt_ci(a['solve_rate']['lo'], a['solve_rate']['hi'], pct=True)}",
        ],
        [
            "mean reward, errors as 0 (task-clustered)",
            reward(b, "reward_errors_as_zero"),
            reward(a, "reward_errors_as_zero"),
        ],
        ["mean reward, infra errors dropped", reward(b, "reward_infra_dropped"), reward(a, "reward_infra_dropped")],
        ["infra-error rows", b["n_infra_errors"], a["n_infra_errors"]],
        ["mean agent turns", fmt_num(b["mean_turns"], 1), fmt_num(a["mean_turns"], 1)],
        ["mean tokens", fmt_num(b["mean_tokens"], 0), fmt_num(a["mean_tokens"], 0)],
        ["failure-mode coverage", fmt_pct(b["failure_mode_coverage"]), fmt_pct(a["failure_mode_coverage"])],
    ]
    return md_table(["metric", b["label"], a["label"]], rows)


def _group_table(groups: dict[str, Any]) -> str:
    rows = []
    for value, g in groups.items():
        if g.get("invalid_for_comparison"):
            rows.append([md_text(value), g["before"]["n_rows"], g["after"]["n_rows"], 0, "—", "—", "not comparable"])
            continue
        pr, fl = g["paired"]["passed"], g["task_flips"]
        delta = (
            f"{fmt_pct(pr['estimate'], signed=True)} {fmt_ci(pr['lo'], pr['hi'], pct=True, signed=True)}"
            if "estimate" in pr
            else "not enough data"
        )
        sig = ", ".join(f["feature"] for f in g["features"] if f["significant"]) or "none"
        rows.append(
            [
                md_text(value),
                g["before"]["n_rows"],
                g["after"]["n_rows"],
                g["common_tasks"],
                delta,
                f"+{fl['newly_passing']}/−{fl['newly_failing']} (p={fmt_p(fl['mcnemar_p'])})",
                sig,
            ]
        )
    return md_table(
        [
            "value",
            "rows before",
            "rows after",
            "common tasks",
            "Δ solve rate",
            "flips (McNemar)",
            "significant features",
        ],
        rows,
    )


def render_markdown(r: dict[str, Any], sources: dict[str, Any] | None = None) -> str:
    """report.md: the summary in words first, then the tables behind it."""
    out = [f"# Q1 — Behavioural delta: {r['labels'][0]} → {r['labels'][1]}", ""]
    for side, ref in (sources or {}).items():
        out.append(
            f"- {side}: {md_code(ref.get('source'))} (revision {md_code(str(ref.get('revision'))[:12])}, "
            f"{ref.get('rows')} rows)"
        )
    out += ["", "## Summary", "", bullet_list(r["summary"]), "", "## Macro metrics", "", _macro_table(r), ""]
    if r.get("pairing"):
        out += pairing_section(r["pairing"])
    if r.get("invalid_for_comparison"):
        out += [f"**Invalid for comparison:** {r['invalid_for_comparison']}", ""]
        return "\n".join(out)
    fl = r["task_flips"]
    out += [
        "## Behavioural features",
        "",
        f"Paired over common tasks (each task = mean of its attempts), {r['n_boot']} task-clustered bootstrap "
        "resamples; p from a paired sign-flip test; **significant** = 95% CI excludes 0 and Holm-adjusted p < "
        f'{r["alpha"]} across the {len(r["features"])} features ("nominal" = CI excludes 0 only). d = Δ / pooled SD '
        "of per-trace values.",
        "",
        _feature_table(r["features"]),
        "",
        "## Task-level pass/fail flips",
        "",
        f"{fl['rule']}; {fl['n_common']} common tasks: {fl['both_pass']} pass on both, {fl['both_fail']} fail on both, "
        f"{fl['newly_passing']} newly passing, {fl['newly_failing']} newly failing; exact McNemar p = "
        f"{fmt_p(fl['mcnemar_p'])}.",
        "",
        "Newly passing: " + (", ".join(md_code(t) for t in fl["newly_passing_tasks"]) or "none"),
        "",
        "Newly failing: " + (", ".join(md_code(t) for t in fl["newly_failing_tasks"]) or "none"),
        "",
        "## Tool-call distribution shift (share of all tool calls)",
        "",
        _shift_table(r["shifts"]["tool_calls"], "tool"),
        "",
        "## Error-type shift (share of rows)",
        "",
        _shift_table(r["shifts"]["error_types"], "error type"),
        "",
        "## Failure-mode shift (share of rows)",
        "",
        f"Labels by: {r.get('failure_mode_annotator') or 'none'}.",
        "",
        _shift_table(r["shifts"]["failure_modes"], "failure mode")
        if r["shifts"]["failure_modes"]
        else "_No failure_mode labels on either side (run the failure-mode annotation to populate them)._",
        "",
    ]
    for col, groups in r["groups"].items():
        out += [f"## By {col}", "", _group_table(groups), ""]
    if r.get("format_compliance"):
        out += [
            "## Format compliance: attempts with no extractable answer",
            "",
            "Over the attempts of the tasks both sides attempted; an answer the eval's own extraction did not give "
            "(none, blank, `[invalid]`) is missing. Wilson 95% intervals per side, Newcombe's for the change.",
            "",
            compliance_table(r["format_compliance"]),
            "",
        ]
    return "\n".join(out)
