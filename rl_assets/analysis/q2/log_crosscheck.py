"""report.md lines for the log reader's cross-checks (rl_assets/ingest/training_logs/crosscheck.py builds
them: the parsed table's final step against wandb-summary.json / trainer_log.jsonl)."""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import first_of


def crosscheck_markdown(checks: list[dict[str, Any]]) -> list[str]:
    """report.md lines: what was compared with what, and every differing key (never a bare 'ok')."""
    lines = ["## Cross-check against an independent record", ""]
    for c in checks:
        if c["status"] == "no_independent_record":
            lines.append(f"- No independent record: {md_text(c['reason'])}. Nothing was compared.")
            continue
        if c["status"] == "unreadable_record":
            lines.append(
                f"- **Failed**: {md_code(c['source'])} is there but cannot be read ({md_text(c['reason'])}); "
                "nothing was compared."
            )
            continue
        lines.append(
            f"- {md_code(c['source'])}, step {c['step']}: {c['matched']} of {len(c['compared'])} shared keys match"
            + (
                f"; not logged at that step: {first_of([md_code(k) for k in c['not_at_step']])}"
                if c.get("not_at_step")
                else ""
            )
            + "."
        )
        lines += [
            f"  - differs: {md_code(d['key'])} table {d['table']} vs record {d['record']}"
            + (f" ({d['hint']})" if d["hint"] else "")
            for d in c["differ"]
        ]
    return lines + [""]
