"""Tolerant JSON extraction for LLM replies.

Structured output (response_format json_schema) is requested, but many OpenAI-compatible
servers ignore it and answer with JSON inside prose, a fenced block or an ``Invalid \\escape``
(docs/original_pipeline.md, LLM judge), so we try, in order: the raw text,
every fenced block, the outermost ``{...}`` / ``[...]`` span, and each of those again after
repairing invalid backslash escapes and trailing commas. Anything still unparseable raises
``JSONRepairError`` so the caller records a failure instead of caching a default.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
# Valid escapes are matched (and kept) first, so an escaped backslash before a letter survives.
_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})?')
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class JSONRepairError(ValueError):
    """No JSON value could be recovered from the reply."""


def _outermost(text: str, open_ch: str, close_ch: str) -> str | None:
    start, end = text.find(open_ch), text.rfind(close_ch)
    return text[start : end + 1] if 0 <= start < end else None


def _candidates(text: str) -> list[str]:
    out = [text.strip()]
    out += [m.group(1).strip() for m in _FENCE.finditer(text)]
    # An unterminated fence (reply cut off after the opening ```json) still holds the object.
    if text.lstrip().startswith("```") and len(out) == 1:
        out.append(text.lstrip().split("\n", 1)[-1])
    for open_ch, close_ch in (("{", "}"), ("[", "]")):
        span = _outermost(text, open_ch, close_ch)
        if span:
            out.append(span)
    seen, uniq = set(), []
    for c in out:
        if c and c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq


def repair(text: str) -> str:
    """Fix the two defects we actually see: stray backslashes and trailing commas."""
    fixed = _ESCAPE.sub(lambda m: m.group(0) if m.group(1) else "\\\\", text)
    return _TRAILING_COMMA.sub(r"\1", fixed)


def parse_json_loose(text: str | None) -> Any:
    """Return the first JSON value recoverable from ``text`` (see module doc for the order)."""
    if not text or not text.strip():
        raise JSONRepairError("empty reply")
    first_error = None
    for cand in _candidates(text):
        for attempt in (cand, repair(cand)):
            try:
                # strict=False tolerates raw control characters (newlines) inside strings.
                return json.loads(attempt, strict=False)
            except json.JSONDecodeError as exc:
                first_error = first_error or exc
    raise JSONRepairError(f"no parseable JSON in reply ({first_error}); starts {text[:80]!r}")
