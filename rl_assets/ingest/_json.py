"""One JSON entry point for ingest: orjson when installed (about 5x faster on trace-sized
string-heavy rows, which dominates ingest time), the standard library otherwise.

Everything unusual is handled on the error path only, so the common row pays nothing for it:
a UTF-8 byte order mark, NaN/Infinity (Python's json.dump writes them, orjson refuses them),
values nested deeper than orjson's limits, and lone surrogate escapes ("\\ud83d": valid JSON
syntax, not valid Unicode -- parquet and orjson cannot store them, so they are refused here as
BadJSON instead of failing a whole batch later).

Integers beyond 64 bits are the one case orjson does not refuse: it silently parses them as the
nearest float. Which orjson results are kept is the shared rule of values/json_exact.py (a value
holding such a float is parsed again by the standard library, which keeps every integer exact).
"""

from __future__ import annotations

import hashlib
import itertools
import json

from rl_assets.values.json_exact import NOT_PARSED, parsed_by_orjson

try:  # optional speed-up; results are identical either way
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    _orjson = None  # type: ignore[assignment]  # the module or None: callers test for None

# Both backends raise a ValueError subclass on bad input (orjson.JSONDecodeError subclasses
# json.JSONDecodeError); UnicodeDecodeError is also a ValueError.
JSONError = ValueError
BOM = b"\xef\xbb\xbf"
SURROGATE = "lone surrogate escape (not valid Unicode)"
TOO_DEEP = "value nested too deeply"
BAD_UTF8 = "invalid UTF-8"
BAD_JSON = "invalid JSON"
LONG_INT = "integer longer than Python's 4300-digit limit"
_UNIQUE = itertools.count()


class BadJSON(ValueError):
    """A JSON value this pipeline cannot hold; ``kind`` is the skip reason."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


def loads(data: bytes | str):
    """Parse JSON. What orjson rejects is retried with the standard library before it counts
    as malformed."""
    value = parsed_by_orjson(data)
    if value is not NOT_PARSED:
        return value
    if isinstance(data, bytes):
        if data.startswith(BOM):
            return loads(data[3:])
        data = data.decode("utf-8")  # strict: invalid UTF-8 raises, never silently replaced
    elif data.startswith("\ufeff"):
        return loads(data[1:])
    try:
        value = json.loads(data)
    except RecursionError as exc:
        raise BadJSON(TOO_DEEP) from exc
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # int() refuses over 4300 digits (a DoS guard)
            raise BadJSON(LONG_INT) from exc
        raise
    _check_encodable(value)
    return value


def _check_encodable(value) -> None:
    """Only the stdlib path can produce lone surrogates: refuse them (and over-deep values)."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadJSON(SURROGATE, str(exc)) from exc
    except RecursionError as exc:
        raise BadJSON(TOO_DEEP) from exc


def dumps(obj, sort_keys: bool = False) -> str:
    """Compact JSON text; non-JSON values (datetimes, numpy scalars) fall back to str(). orjson
    stops at 255 levels of nesting and at 64-bit integers; the standard library takes both. ``sort_keys`` text is
    hashed as content (an lm-eval doc): orjson, a dependency, writes it; the fallback for values orjson
    refuses writes the same text except float exponents (``1e-07`` for orjson's ``1e-7``)."""
    if _orjson is not None:
        option = _orjson.OPT_SERIALIZE_NUMPY | (_orjson.OPT_SORT_KEYS if sort_keys else 0)
        try:
            return _orjson.dumps(obj, default=str, option=option).decode("utf-8")
        except _orjson.JSONEncodeError as exc:
            # too deep, or an integer beyond 64 bits (loads keeps those exact): the standard library
            # writes both
            if "Recursion" not in str(exc) and "64-bit" not in str(exc):
                if "surrogates" in str(exc):
                    raise BadJSON(SURROGATE, str(exc)) from exc
                raise
    try:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str, sort_keys=sort_keys)
    except RecursionError as exc:
        raise BadJSON(TOO_DEEP) from exc


def fingerprint(obj) -> str:
    """A content hash of a JSON-like value, independent of key order (duplicate detection)."""
    try:
        if _orjson is None:
            raise TypeError("no orjson")
        data = _orjson.dumps(obj, default=str, option=_orjson.OPT_SORT_KEYS | _orjson.OPT_SERIALIZE_NUMPY)
    except TypeError:  # no orjson, or a value it cannot take (deep nesting)
        try:
            data = json.dumps(obj, sort_keys=True, default=str).encode("utf-8", "surrogatepass")
        except (RecursionError, TypeError, ValueError):
            return f"unhashable:{next(_UNIQUE)}"  # never equal to another: kept as distinct
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def bad_kind(exc: BaseException) -> str | None:
    """The skip reason for an exception raised while reading one value, if it is a JSON one."""
    if isinstance(exc, BadJSON):
        return exc.kind
    if isinstance(exc, RecursionError):
        return TOO_DEEP
    msg = str(exc)
    if "surrogate" in msg:
        return SURROGATE
    if isinstance(exc, UnicodeDecodeError):
        return BAD_UTF8
    if "Recursion limit" in msg:  # orjson's words for its nesting limits
        return TOO_DEEP
    if "integer string conversion" in msg:  # the standard library's raw_decode (jsonl's record splitter)
        return LONG_INT
    if isinstance(exc, json.JSONDecodeError):
        return BAD_UTF8 if "utf-8" in msg.lower() else BAD_JSON
    return None


def backend() -> str:
    return "orjson" if _orjson is not None else "json"
