"""Decode metric payloads: WANDB_MIRROR JSON objects and python-repr dicts (legacy / console).

Both return a flat ``{key: float}``; values that are not numbers (nested dicts, free text) are
dropped and counted by the caller, never guessed at.
"""

from __future__ import annotations

import ast
import json
import re

# python repr writes non-finite floats as bare nan / inf, which literal_eval rejects; quote them
# (only in value position, so a key or text containing "nan" is left alone).
_BARE_NONFINITE_RE = re.compile(r"(?<=[:\[,]\s)(-?)(nan|inf)(?=\s*[,}\]])")


class PayloadError(ValueError):
    """The payload is not a complete dict; ``truncated`` when the text simply stops early."""

    def __init__(self, message: str, truncated: bool):
        super().__init__(message)
        self.truncated = truncated


def to_float(value) -> float | None:
    """Numbers and numeric strings ('0.0000' from pformat, 'NaN') -> float; anything else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def numeric_items(payload: dict) -> tuple[dict[str, float], int]:
    """Flatten a decoded dict to numeric metrics; return (metrics, count of non-numeric values)."""
    out: dict[str, float] = {}
    dropped = 0
    for key, value in payload.items():
        num = to_float(value)
        if num is None:
            dropped += 1
        else:
            out[str(key)] = num
    return out, dropped


def decode_json_object(text: str) -> dict:
    """Decode the JSON after ``metrics=``; Python's json accepts the NaN/Infinity SkyRL writes."""
    text = text.strip()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        # An error at (or past) the last character means the line was cut off mid-object.
        raise PayloadError(f"invalid JSON: {exc.msg}", truncated=exc.pos >= len(text) - 1) from None
    if not isinstance(obj, dict):
        raise PayloadError(f"metrics is a {type(obj).__name__}, not an object", truncated=False)
    return obj


def decode_python_dict(text: str) -> dict:
    """Decode a python-repr dict with ast.literal_eval (safe, and unlike a quote swap it keeps
    apostrophes inside string values intact)."""
    text = text.strip()
    if not text.endswith("}"):
        raise PayloadError("dict does not close", truncated=True)
    try:
        obj = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            obj = ast.literal_eval(_BARE_NONFINITE_RE.sub(r"'\1\2'", text))
        except (ValueError, SyntaxError) as exc:
            raise PayloadError(f"not a python dict literal: {exc}", truncated=False) from None
    if not isinstance(obj, dict):
        raise PayloadError(f"literal is a {type(obj).__name__}, not a dict", truncated=False)
    return obj
