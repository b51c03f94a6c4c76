"""Whether an attempt has an extractable answer: one rule for ingest's toolkit checks and the audit's
format-compliance finding (a neutral value module, imported by both layers)."""

from __future__ import annotations


def no_answer(answer: object) -> bool:
    """No extractable answer: the eval's extraction gave nothing (None, blank, or lm-evaluation-harness's
    ``[invalid]`` placeholder of its regex filters)."""
    return answer is None or not str(answer).strip() or str(answer).strip() == "[invalid]"
