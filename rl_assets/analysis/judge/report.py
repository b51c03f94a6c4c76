"""report.{md,json} for Q1_llm_judge: what was asked, of whom, and how much to trust the answer (content only)."""

from __future__ import annotations

from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import Report, json_text, jsonable, md_table

_PROBE_NOTE = {
    "most_changed": "discordant (pass/fail flipped) tasks first, then largest behaviour delta - "
    "selection-biased: shows WHAT changed, not a win rate over the benchmark",
    "random": "seeded uniform sample of the remaining tasks (disjoint) - the unbiased control",
}


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ci(share: dict) -> str:
    lo, hi = share["wilson95"]
    return f"{_pct(share['share'])} [{100 * lo:.1f}, {100 * hi:.1f}]"


def render_markdown(report: dict) -> str:
    lines = [
        f"# Q1 LLM judge: {md_text(report['model'])}",
        "",
        f"- Judge: **{md_text(report['judge'])}** (prompt {report['prompt_version']})",
        f"- Attempt per side: `{report['attempt_rule']}` (attempt 0 unless configured; not best-of-n)",
        f"- Common tasks: {report['common_tasks']}; seed {report['seed']}",
        "- Each pair judged in both orders with anonymised labels (Trace A / Trace B); orders that "
        "disagree count as a tie.",
        f"- Judgments requested {report['judgments_requested']}, failed {report['judgments_failed']} "
        f"(budget refused {report['judgments_budget_refused']}); parse-failure rate "
        f"{_pct(report['parse_failure_rate']) if report['judgments_requested'] else 'n/a (no judgments)'}. "
        "Failed judgments are retried on the next run.",
        "",
    ]
    failures = report.get("call_failures") or {}
    if failures.get("failed"):
        from rl_assets.analysis.judge.llm_failures import failure_lines

        head = "Every judgment failed" if failures["all_failed"] else f"{failures['failed']} judgments failed"
        lines += [f"## {head}: reasons", "", *failure_lines(failures), ""]
    if "offline" in report["judge"]:
        lines += [
            "> **Offline heuristic, not an LLM**: verdicts follow recorded reward and tool errors only; "
            "tags come from feature deltas. Configure an endpoint for real judgments (docs/llm.md).",
            "",
        ]
    for name, s in report["probes"].items():
        lines += [
            f"## Probe {md_code(name)}: {s['judged']} pairs judged of {s['attempted']}",
            "",
            f"_{_PROBE_NOTE.get(name, '')}_",
            "",
            md_table(
                ["winner", "pairs", "share [Wilson 95%]"],
                [[side, s["win"][side]["count"], _ci(s["win"][side])] for side in ("post-rl", "baseline", "tie")],
                align="-r-",
            ),
            "",
            f"- Post-RL win rate among decisive pairs: {_ci(s['post_rl_win_rate_decisive'])}",
            f"- Order-flip rate: {_pct(s['order_flip_rate'])} ({s['order_flips']} pairs)",
            f"- Confidence: {', '.join(f'{k} {v}' for k, v in sorted(s['confidence'].items())) or 'n/a'}",
            f"- Unknown tags dropped: {s['dropped_tags']}",
            "",
            md_table(
                ["tag (post-RL vs baseline)", "pairs", "share"],
                [[t, v["count"], _pct(v["share"])] for t, v in list(s["tags"].items())[:12]],
                align="-rr",
            ),
            "",
        ]
    top = sorted((p for p in report["pairs"] if p["status"] == "judged"), key=lambda p: -p["behavior_delta_score"])[:5]
    if top:
        lines += ["## Most-shifted pairs (judge's words, baseline-first order)", ""]
        for p in top:
            lines += [
                f"- **{md_text(p['task'])}** ({p['probe']}): winner {p['winner']}"
                f"{' (orders disagreed)' if p['order_flip'] else ''}; tags {md_text(', '.join(p['tags']) or '-')}. "
                f"{md_text(p['behavior_change'][:400])}"
            ]
    return "\n".join(lines) + "\n"


def judge_report(report: dict) -> Report:
    """Q1_llm_judge/: report.json (every pair and verdict), then report.md; the UI shows its first 4,000 characters."""
    markdown = render_markdown(report)
    return Report({"report.json": json_text(jsonable(report)), "report.md": markdown}, markdown[:4000], {})
