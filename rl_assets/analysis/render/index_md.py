"""INDEX.md for one model: every analysis asset's status in the Dagster instance, links, findings.

Pure: the asset (rl_assets/assets/report_index.py) gathers per-asset status dicts from the event
log and the parsed report files; this module only summarises and formats them. It is not a
completion marker (docs/original_pipeline.md, W14): it says what Dagster recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rl_assets.analysis.integrity.rules import WARNING_SIGNALS
from rl_assets.analysis.render.escape import md_text
from rl_assets.analysis.render.md_links import absolute_links
from rl_assets.values.escape import md_table

COMPLETION_NOTE = (
    "A Dagster run's status, not this file's existence, is the completion signal: this page only "
    "reports what the Dagster event log held for this partition when it was written."
)
QUESTIONS = {
    "preflight": "Inputs: the checkpoint, its eval pair and the normalized traces",
    "q1": "Q1. What behaviour did RL change?",
    "q2": "Q2. When and why did it change during training?",
    "q3": "Q3. Do the changes persist into the post-RL eval traces?",
    "q4": "Q4. Does it matter on evals (solve rate by context)?",
    "audit": "Audit: real skill, format, or a gamed reward?",
    "integrity": "Reward integrity: was the reward earned outside the task?",
}
ICON = {
    "materialized": "✅",
    "failed": "❌",
    "not applicable": "➖",
    "running": "🔄",
    "interrupted": "⛔",
    "never materialized": "⏳",
}
VERSION_CHARS = 12  # data versions shown in INDEX.md (see version_text)


# How a finding line is qualified by its asset's state. "Stale" only where there is an older value a newer run
# did not replace; an asset never materialized has no finding to be stale ("(stale: X is never materialized)").
QUALIFIER = {
    "never materialized": "not computed yet: {asset} was never materialized",
    "failed": "stale: the latest run of {asset} failed; this is from its last success",
    "running": "stale: {asset} is being recomputed",
    "interrupted": "stale: the latest run of {asset} was interrupted; this is from its last success",
}


def mark_stale(lines: list[str], asset: str, state: str | None) -> list[str]:
    """Findings come from the asset's latest stored value, which outlives a failed rerun: say so rather
    than present them as current (and say "not computed yet", not "stale", where there is none)."""
    if state in ("materialized", "not applicable"):
        return lines
    qualifier = QUALIFIER.get(state or "", "stale: {asset} is {state}").format(asset=asset, state=state)
    return [f"({qualifier}) {ln}" for ln in lines]


def q1_findings(report: dict[str, Any] | None) -> list[str]:
    if report is None:
        return ["Q1 behavioural delta: not produced"]
    if report.get("invalid_for_comparison"):
        return [f"Q1: not comparable — {report['invalid_for_comparison']}"]
    sig = [f for f in report.get("features", []) if f.get("significant")]
    if report.get("features") and all(f.get("not_enough_data") for f in report["features"]):
        lines = ["Q1: not enough data to test behavioural features"]
    elif not sig:
        lines = ["Q1: no behavioural feature changed significantly (Holm-corrected)"]
    else:
        lines = [
            "Q1 significant changes: "
            + ", ".join(
                f"{f['feature']} {f['before']:.3g} → {f['after']:.3g}"
                if isinstance(f.get("before"), (int, float)) and isinstance(f.get("after"), (int, float))
                else str(f["feature"])
                for f in sig
            )
        ]
    paired = (report.get("paired") or {}).get("passed") or {}
    flips = report.get("task_flips") or {}
    if paired.get("before") is not None and paired.get("after") is not None:
        lines.append(
            f"Q1 solve rate (paired tasks): {paired['before']:.3f} → {paired['after']:.3f}"
            + (
                f"; {flips.get('newly_passing')} newly passing, {flips.get('newly_failing')} newly failing tasks"
                f" (McNemar p = {flips['mcnemar_p']:.3g})"
                if isinstance(flips.get("mcnemar_p"), float)
                else ""
            )
        )
    return lines


def judge_findings(report: dict[str, Any] | None) -> list[str]:
    if report is None:
        return ["LLM judge: not produced"]
    out = []
    for name, probe in (report.get("probes") or {}).items():
        win = probe.get("post_rl_win_rate_decisive") or {}
        if win.get("share") is not None:
            lo, hi = (win.get("wilson95") or [None, None])[:2]
            ci = f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else ""
            out.append(
                f"judge ({md_text(report.get('judge', '?'))}), probe {md_text(name)}: post-RL wins "
                f"{win['share']:.2f}{ci} "
                f"of decisive pairs ({win.get('count', '?')} post-RL wins)"
            )
        else:
            out.append(f"judge probe {md_text(name)}: no decisive pairs")
    return out or ["LLM judge: report has no probes"]


def audit_findings(report: dict[str, Any] | None) -> list[str]:
    if report is None:
        return ["audit: not produced"]
    rows = report.get("rows") or []
    return [
        "audit labels: "
        + (", ".join(f"{md_text(r.get('family', '?'))}: {md_text(r.get('label', '?'))}" for r in rows) or "none"),
        *compliance_findings(report.get("format_compliance")),
    ]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def compliance_findings(rows: list[dict[str, Any]] | None) -> list[str]:
    """One line for the audit's format-compliance finding: the families whose no-answer share changed
    significantly (with accuracy beside it), and how many were measured (docs/audit.md)."""
    measured = [r for r in rows or () if r.get("applicable")]
    if not measured:
        return []
    moved = [r for r in measured if r.get("significant")]
    parts = [
        f"{md_text(r['family'])} {_pct(r['before']['no_answer_share'])} → {_pct(r['after']['no_answer_share'])} "
        f"({100 * r['change']:+.1f} pts [{100 * r['change_ci'][0]:+.1f}, {100 * r['change_ci'][1]:+.1f}]; "
        f"accuracy {_pct(r['before']['accuracy'])} → {_pct(r['after']['accuracy'])})"
        for r in moved
    ]
    unchanged = len(measured) - len(moved)
    tail = f"{unchanged} of {len(measured)} families without a significant change" if unchanged else ""
    return ["format compliance (attempts with no extractable answer): " + "; ".join(filter(None, [*parts, tail]))]


def integrity_headline(value: dict[str, Any] | None) -> list[str]:
    """INDEX.md's first line under the title: the reward-integrity verdict (docs/integrity.md)."""
    if value is None:
        return ["Reward integrity: not produced"]
    if not value.get("applicable"):
        return [f"Reward integrity: not applicable ({md_text(value.get('reason', '?'))})"]
    # a warning signal (responses cut at the length cap) holds without deciding the verdict: say so, so a
    # "healthy" headline with an onset beside it does not read as a failure
    onsets = ", ".join(
        f"{md_text(n)} from step {s}" + (" (warning)" if n in WARNING_SIGNALS else "")
        for n, s in sorted((value.get("onsets") or {}).items(), key=lambda kv: (kv[1], kv[0]))
    )
    return [f"Reward integrity: **{md_text(value['verdict'])}** — {md_text(onsets or value.get('verdict_reason', ''))}"]


def _cell(value: object) -> str:
    # markdown composed here, its untrusted parts already escaped: keep it one cell
    return " ".join(str(value).split()).replace("|", "\\|") if value not in (None, "") else "—"


def run_ref(run_id: str, ui_url: str = "") -> str:
    """The full run id (a prefix finds nothing at /runs/<id>), a link to the run page when the UI URL is known.

    >>> run_ref("abc-123", "http://127.0.0.1:3000/")
    '[`abc-123`](http://127.0.0.1:3000/runs/abc-123)'
    >>> run_ref("abc-123")
    '`abc-123`'
    """
    return f"[`{run_id}`]({ui_url.rstrip('/')}/runs/{run_id})" if ui_url and run_id else f"`{run_id}`"


def status_line(s: dict[str, Any], ui_url: str = "") -> str:
    run = run_ref(s["run_id"], ui_url)
    if s["status"] == "materialized":
        detail = f"run {run} at {s['timestamp']}, data version {version_text(s.get('data_version'))}"
    elif s["status"] == "failed":
        detail = f"failed in run {run} at {s['timestamp']}: {md_text(s.get('error') or 'no error message')}"
        if s.get("last_success"):
            detail += f" (last success: run {run_ref(s['last_success'], ui_url)}; its outputs below may be stale)"
    elif s["status"] == "not applicable":
        detail = f"{md_text(str(s.get('reason')).removeprefix('not applicable: '))} (run {run} at {s['timestamp']})"
    elif s["status"] == "interrupted":
        detail = f"run {run} stopped without finishing (its process is gone: killed or out of memory); rerun it"
    elif s["status"] == "running":
        detail = f"being materialized by run {run} right now"
    else:
        detail = "no materialization or failure recorded for this partition"
    return f"{ICON[s['status']]} {s['status']}: {detail}"


def version_text(version: str | None) -> str:
    """A data version as INDEX.md shows it: one length for every asset (Dagster's own are 64 hex
    characters, ours 16 to 40), enough to tell versions apart by eye; the UI shows the full value.

    >>> version_text("0123456789abcdef0123"), version_text("abc"), version_text(None)
    ('`0123456789ab`', '`abc`', '`n/a`')
    """
    return f"`{(version or 'n/a')[:VERSION_CHARS]}`"


def input_versions(s: dict[str, Any], current: dict[str, str], running: frozenset[str] | set[str] = frozenset()) -> str:
    """Each input's data version as this materialization read it; when the input has moved on since,
    its current version too (the same value the UI shows on that asset), so a mismatch means stale;
    an input a run is recomputing right now says so.

    >>> input_versions({"inputs": {"a": "v1", "b": "v2", "c": "v4"}}, {"a": "v1", "b": "v3"}, {"c"})
    'a: `v1`, b: `v2` (now `v3`: stale), c: `v4` (being recomputed)'
    """
    parts = []
    for key, version in sorted((s.get("inputs") or {}).items()):
        now = current.get(key)
        mark = (
            " (being recomputed)"
            if key in running
            else f" (now {version_text(now)}: stale)"
            if now and now != version
            else ""
        )
        parts.append(f"{key}: {version_text(version)}{mark}")
    return ", ".join(parts) or "—"


def stale_inputs(s: dict[str, Any], current: dict[str, str], running: set[str]) -> str:
    """The inputs of a materialization that are stale (moved on since it read them) or being recomputed.

    >>> stale_inputs({"inputs": {"a": "v1", "b": "v2", "c": "v3"}}, {"a": "v1", "b": "v9"}, {"c"})
    'b (stale), c (being recomputed)'
    """
    parts = []
    for key, version in sorted((s.get("inputs") or {}).items()):
        if key in running:
            parts.append(f"{key} (being recomputed)")
        elif current.get(key) and current[key] != version:
            parts.append(f"{key} (stale)")
    return ", ".join(parts)


def render_summary(
    statuses: list[dict[str, Any]], findings: list[str], ui_url: str = "", folder_url: str | None = None
) -> str:
    """INDEX.md narrow enough for the UI's metadata dialog: findings, then one row per asset (status, run,
    and which of its inputs are stale or being recomputed); data versions, errors and output links stay
    in INDEX.md itself. The UI resolves a relative link against its own page, so links in findings are
    made absolute under `folder_url` (the URL of the model's report folder), or plain text without one."""
    current = {s["asset"]: s["data_version"] for s in statuses if s.get("data_version")}
    running = {s["asset"] for s in statuses if s["status"] == "running"}
    rows = [
        [
            s["asset"],
            f"{ICON[s['status']]} {s['status']}",
            run_ref(s["run_id"], ui_url) if s["run_id"] else "—",
            stale_inputs(s, current, running) or "—",
        ]
        for s in statuses
    ]
    return (
        "\n".join(
            [
                *(f"- {_cell(absolute_links(str(f), folder_url))}" for f in findings),
                "",
                md_table(["asset", "status", "run", "stale inputs"], rows, align="----"),
                "",
                "Data versions, inputs, errors and output files: INDEX.md (the `path` entry).",
            ]
        )
        + "\n"
    )


def render_index(
    model: str,
    generated_at: str,
    statuses: list[dict[str, Any]],
    outputs: list[str],
    findings: list[str],
    ui_url: str = "",
    headline: Sequence[str] = (),
) -> str:
    """`headline`: lines shown right under the title (the reward-integrity verdict)."""
    counts = {k: sum(s["status"] == k for s in statuses) for k in ICON}
    lines = [
        f"# RL behavioural analysis — {md_text(model)}",
        "",
        *(f"{' '.join(str(h).split())}  " for h in headline),
        *([""] if headline else []),
        f"Generated {generated_at} (UTC).",
        "",
        f"> {COMPLETION_NOTE}",
        "",
        "Assets: " + ", ".join(f"{n} {k}" for k, n in counts.items() if n),
        "",
        "## Findings at a glance",
        "",
    ]
    # findings are markdown built here (lineage links included); their untrusted parts are escaped
    # where they are built, and a newline in one cannot start a block
    lines += [f"- {' '.join(str(f).split())}" for f in findings] + [""]
    current = {s["asset"]: s["data_version"] for s in statuses if s.get("data_version")}
    running = {s["asset"] for s in statuses if s["status"] == "running"}
    for group, question in QUESTIONS.items():
        members = [s for s in statuses if s["group"] == group]
        if not members:
            continue
        rows = [
            [
                f"**{s['asset']}**",
                _cell(status_line(s, ui_url)),
                ", ".join(f"[{p}]({p})" for p in s.get("links", [])) or "—",
                _cell(input_versions(s, current, running)),
            ]
            for s in members
        ]
        lines += [
            f"## {question}",
            "",
            md_table(["asset", "status", "outputs", "inputs (data versions)"], rows, align="----"),
            "",
        ]
    lines += ["## Every output file", ""]
    lines += [f"- [{p}]({p})" for p in outputs] or ["- not produced: no files in this report folder yet"]
    return "\n".join(lines) + "\n"
