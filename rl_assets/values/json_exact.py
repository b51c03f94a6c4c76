"""JSON parsed by orjson wherever its result equals the standard library's: the one rule the trace
ingest (ingest/_json.py) and the judge's conversation rendering (analysis/judge/prompts.py) share.

orjson parses trace-sized, string-heavy JSON several times faster than json.loads and gives the same
values, with two exceptions. It refuses what json.loads reads more loosely (NaN, Infinity, 1e400,
lone surrogates, nesting past its limit): it raises. And it parses an integer beyond 64 bits as the
nearest float (12345678901234567890123 -> 1.2345678901234568e+22) without a word. So a value it
parsed is checked for a float of at least 2**63 in magnitude -- a walk over the containers only,
small beside the parse of a row whose bytes are mostly text -- and such a value, like everything
orjson refuses, is left to the standard library, which keeps every integer exact. A true float that
large (1e19 written as such) takes the same path and parses the same.
"""

from __future__ import annotations

import json
from typing import Any

try:  # a dependency; the standard library alone gives the same values, slower
    import orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    orjson = None  # type: ignore[assignment]  # the module or None: parsed_by_orjson tests for None

NOT_PARSED = object()  # orjson's result would differ from json.loads' (or orjson is missing)
# every float orjson makes of an integer outside [-2**63, 2**64) is at least this large
_HUGE = float(1 << 63)


def parsed_by_orjson(data: bytes | str) -> Any:
    """orjson's parse of data where it equals what json.loads gives, else NOT_PARSED (orjson refused
    the text, or read an integer past 64 bits as a float)."""
    if orjson is None:
        return NOT_PARSED
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return NOT_PARSED
    return NOT_PARSED if has_huge_float(value) else value


def loads(text: str) -> Any:
    """json.loads(text), faster; raises what json.loads raises."""
    value = parsed_by_orjson(text)
    return json.loads(text) if value is NOT_PARSED else value


def has_huge_float(value: Any) -> bool:
    """Whether a parsed value holds a float of magnitude >= 2**63 (strings are not looked into)."""
    stack = [value]
    while stack:  # a loop, not recursion: nesting as deep as orjson accepts cannot overflow it
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float and not -_HUGE < item < _HUGE:
            return True
    return False
