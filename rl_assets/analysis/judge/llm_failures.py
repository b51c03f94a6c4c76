"""What went wrong with a batch of LLM calls, by reason, so a dead endpoint is loud.

A judge or annotator run whose every call was refused (401, a wrong base URL, an exhausted
budget) must not pass as "failed 12" with no reason: the reason is reported, not left in cache files.
Reasons are masked (rl_assets/values/masking.py) and trimmed; counts are per distinct reason.
"""

from __future__ import annotations

import re
from collections import Counter

from rl_assets.values.masking import mask

REASON_CHARS = 200


def reason_of(error: str) -> str:
    """One failure's reason as shown: masked, on one line, at most REASON_CHARS characters."""
    text = re.sub(r"\s+", " ", mask(error or "unknown")).strip()
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def failure_summary(errors: list[str], requested: int) -> dict:
    """{requested, failed, all_failed, reasons: {reason: count}} over the errors of one run's calls."""
    reasons = Counter(reason_of(e) for e in errors)
    failed = sum(reasons.values())
    return {
        "requested": requested,
        "failed": failed,
        "all_failed": requested > 0 and failed >= requested,
        "reasons": dict(reasons.most_common()),
    }


def failure_lines(summary: dict) -> list[str]:
    """Markdown bullets, one per reason (the reason as inline code, so markup in it stays text)."""
    from rl_assets.analysis.render.escape import md_code

    return [f"- {n} × {md_code(reason)}" for reason, n in summary["reasons"].items()]
