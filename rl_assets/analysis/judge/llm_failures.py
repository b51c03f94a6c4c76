"""What went wrong with a batch of LLM calls, by reason, so a dead endpoint is loud.

A judge or annotator run whose every call was refused (401, a wrong base URL, an exhausted
budget) must not pass as "failed 12" with no reason: the reason is reported, not left in cache files.
Reasons are masked (rl_assets/values/masking.py) and trimmed; counts are per distinct reason.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from rl_assets.values.masking import mask
from rl_assets.values.results import CheckVerdict, Markdown

REASON_CHARS = 200
# The check the judge and the annotator declare on their LLM calls (spec: rl_assets/support/checks.py).
CALLS_OK = "llm_calls_succeeded"


def reason_of(error: str) -> str:
    """One failure's reason as shown: masked, on one line, at most REASON_CHARS characters."""
    text = re.sub(r"\s+", " ", mask(error or "unknown")).strip()
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def failure_summary(errors: list[str], requested: int) -> dict[str, Any]:
    """{requested, failed, all_failed, reasons: {reason: count}} over the errors of one run's calls."""
    reasons = Counter(reason_of(e) for e in errors)
    failed = sum(reasons.values())
    return {
        "requested": requested,
        "failed": failed,
        "all_failed": requested > 0 and failed >= requested,
        "reasons": dict(reasons.most_common()),
    }


def failure_lines(summary: dict[str, Any]) -> list[str]:
    """Markdown bullets, one per reason (the reason as inline code, so markup in it stays text)."""
    from rl_assets.analysis.render.escape import md_code

    return [f"- {n} × {md_code(reason)}" for reason, n in summary["reasons"].items()]


def calls_verdict(summary: dict[str, Any]) -> CheckVerdict:
    """`llm_calls_succeeded` over a `failure_summary`: fails (ERROR) only when every call failed; a partial
    failure passes with its counts by reason."""
    if summary["all_failed"]:
        description = f"all {summary['requested']} LLM calls failed"
    elif summary["failed"]:
        description = f"{summary['failed']} of {summary['requested']} LLM calls failed"
    else:
        description = f"{summary['requested']} LLM calls, none failed"
    return CheckVerdict(
        CALLS_OK,
        passed=not summary["all_failed"],
        description=description,
        metadata={
            "requested": summary["requested"],
            "failed": summary["failed"],
            "failure_reasons": Markdown("\n".join(failure_lines(summary)) or "none"),
        },
    )
