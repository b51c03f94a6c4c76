"""reward_integrity.md / .json / curves.png: the verdict, every signal with its onset and evidence,
and the rules, as the audit writes them (numbers a reader can re-derive the verdict from)."""

from __future__ import annotations

from rl_assets.analysis.integrity import onsets, rules
from rl_assets.analysis.integrity.finite import describe
from rl_assets.analysis.integrity.plot import curves_plot
from rl_assets.analysis.render.escape import md_text
from rl_assets.analysis.render.report_md import (
    ERROR_RATES,
    Report,
    bullet_list,
    fmt_num,
    fmt_p,
    json_text,
    jsonable,
    md_table,
)

PLOT = "curves.png"


def _evidence(at: dict | None) -> str:
    """'step 25: reward 0.61 (+0.40), task_score 0.40 (-0.10)' from a signal's at_onset/at_end."""
    if not at:
        return "—"
    parts = []
    for key, value in at.items():
        if key == "step":
            continue
        if isinstance(value, dict) and "smoothed" in value:
            parts.append(f"{key} {fmt_num(value['smoothed'])} ({value['change']:+.3g})")
        elif isinstance(value, dict) and "value" in value:
            parts.append(f"{key} {fmt_num(value['value'])} (first {fmt_num(value['first'])})")
        elif key in ("share_of_start", "empty_share", "constant_share", "samples"):
            parts.append(f"{key} {fmt_num(value)}")
    return f"step {at.get('step', '—')}: " + ", ".join(parts)


def signals_table(result: dict) -> str:
    """One row per signal: the table shown in the Dagster UI and at the top of the report."""
    rows = [
        [
            name,
            f"**{s['status']}**",
            s["onset_step"] if s["onset_step"] is not None else "—",
            _evidence(s["at_onset"]),
            _evidence(s["at_end"]),
            md_text(s["reason"]),
        ]
        for name, s in result["signals"].items()
    ]
    return md_table(["signal", "status", "onset step", "at onset", "at end", "why"], rows, align="llrlll")


def summary(result: dict) -> str:
    return f"**{result['verdict']}** — {md_text(result['verdict_reason'])}\n\n" + signals_table(result)


def render_markdown(result: dict, title: str, has_plot: bool) -> str:
    trend = result["reward_trend"]
    parts = [
        f"# Reward integrity: {md_text(title)}",
        "",
        f"Verdict: {summary(result)}",
        "",
        ERROR_RATES,
        "",
        f"{result['n_steps']} logged steps. Reward trend over the run: "
        f"Kendall τ {fmt_num(trend.get('tau'))}, p {fmt_p(trend.get('p'))} ({md_text(trend['reason'])}).",
        "",
    ]
    if has_plot:
        parts += [f"![curves with onsets]({PLOT})", "", "Red lines: onsets of the signals that hold.", ""]
    arith = result["signals"]["non_task_term_share"].get("arithmetic")
    if arith:
        parts += [
            "## Share of the reward's change per non-task term (smoothed, start to end)",
            "",
            bullet_list(md_text(a) for a in arith),
            "",
        ]
    behaviour = result["signals"]["reward_tracks_behaviour"]
    if behaviour.get("arithmetic"):
        parts += [
            "## Share of the reward's change each behaviour count explains (slope × its change / the reward's change)",
            "",
            bullet_list(md_text(a) for a in behaviour["arithmetic"]),
            "",
        ]
    if task := behaviour.get("task_outcome"):
        seen = [e["text"] for e in task["evidence"].values()]
        parts += [
            "Task outcome over the same steps: "
            + md_text("; ".join(seen + [f"not checked: {u}" for u in task["unchecked"]]))
            + ".",
            "",
        ]
    if result.get("non_finite"):
        parts += [
            "## Non-finite values (not counted as logged)",
            "",
            bullet_list(f"{md_text(c)}: {md_text(describe(k))}" for c, k in result["non_finite"].items()),
            "",
        ]
    if shift := trend.get("level_shift"):
        parts += ["Level-shift test of the reward (rule 0): " + md_text(shift["arithmetic"]) + ".", ""]
    if result.get("notes"):
        parts += ["## Notes on the logged terms", "", bullet_list(md_text(n) for n in result["notes"]), ""]
    parts += [
        "## Rules",
        "",
        "The verdict is the first of these that matches:",
        "",
        *result["rules"],
        "",
        "Signals:",
        "",
        bullet_list(f"**{n}**: {md_text(t)}" for n, t in rules.SIGNAL_RULES.items()),
        "",
    ]
    return "\n".join(parts)


def integrity_report(result: dict, steps, title: str) -> Report:
    """The report folder's files (json, md, plot) and the UI summary."""
    marks = [(step, name) for name, step in onsets(result).items()]
    png = curves_plot(steps, marks, f"{title}: {result['verdict']}")
    plots = {PLOT: png} if png else {}
    files = {
        "reward_integrity.json": json_text(jsonable(result)),
        "reward_integrity.md": render_markdown(result, title, bool(png)),
        **plots,
    }
    return Report(files=files, summary=summary(result), plots=plots)


def not_applicable_files(reason: str, title: str) -> dict[str, str]:
    """The folder's files when the model has no training steps to judge (the reason, in words)."""
    return {
        "reward_integrity.json": json_text({"applicable": False, "reason": reason}),
        "reward_integrity.md": f"# Reward integrity: {md_text(title)}\n\nNot applicable: {md_text(reason)}.\n",
    }
