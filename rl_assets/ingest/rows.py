"""Shared row logic for every adapter: outcome fields, dates, stable ids, completion."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

from rl_assets.schema import INFRA_ERRORS, TRACE_COLUMNS

_NULLISH = {"", "none", "null", "nan"}


NON_FINITE = "non-finite result (kept, reward null)"
INEXACT_REWARD = "integer result beyond float64's exact range (kept as the nearest float)"
INT_RANGE = "integer outside int64 range (kept, value null)"
DATE_NOTE = "unparseable date (kept, date null)"
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def parse_result(value, skips=None) -> tuple[float | None, str | None]:
    """Exported `result` -> (reward, error_type): a finite number or float string is a reward;
    any other non-empty string is an exception class name; null/"none"/""/NaN is neither. A
    non-finite number ("inf", "Infinity", "1e400", numeric inf) is neither either and is
    noted on ``skips`` (when given) as NON_FINITE; an integer the float64 reward column cannot hold
    exactly (beyond 2**53) is kept as the nearest float and noted as INEXACT_REWARD."""
    if value is None or isinstance(value, bool):
        return None, None
    if isinstance(value, (int, float)):
        try:
            reward = float(value)
        except OverflowError:  # an int beyond float range
            reward = math.inf
        if isinstance(value, int) and math.isfinite(reward) and int(reward) != value and skips is not None:
            skips.note(INEXACT_REWARD)
    else:
        text = str(value).strip()
        if text.lower() in _NULLISH:
            return None, None
        try:
            reward = float(text)
        except ValueError:
            return None, text
    if math.isnan(reward):
        return None, None
    if math.isinf(reward):
        if skips is not None:
            skips.note(NON_FINITE)
        return None, None
    return reward, None


def parse_date(value) -> datetime | None:
    """ISO string / datetime / epoch -> aware UTC. Naive times are taken as UTC (Harbor writes
    naive local times; the host zone is unknowable from the file, UTC is the stable choice)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, (int, float)):
        dt = datetime.fromtimestamp(float(value), tz=UTC)
    else:
        dt = datetime.fromisoformat(_iso(value))
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _iso(value) -> str:
    """ISO text with a trailing UTC designator "Z" or "z" as "+00:00"."""
    text = str(value).strip()
    return text[:-1] + "+00:00" if text[-1:] in ("Z", "z") else text.replace("Z", "+00:00")


def date_or_note(value, skips) -> datetime | None:
    """A bad date does not void an outcome: the row keeps a null date and the ledger notes it."""
    date, bad = date_or_flag(value)
    if bad:
        skips.note(DATE_NOTE)
    return date


def date_or_flag(value) -> tuple[datetime | None, bool]:
    """(date, True when the value was present but unparseable): lets a scan defer the note
    until it knows whether the row is kept."""
    try:
        return parse_date(value), False
    except (TypeError, ValueError, OverflowError, OSError):
        return None, True


def in_int64(value: int | None, skips=None) -> int | None:
    """value when it fits the int64 columns; else None (noted as INT_RANGE on ``skips``)."""
    if value is None or _INT64_MIN <= value <= _INT64_MAX:
        return value
    if skips is not None:
        skips.note(INT_RANGE)
    return None


def episode_number(value, skips=None) -> int | None:
    """`episode-17` / 17 / 17.0 / "17" / "17.0" -> 17; anything else (or beyond int64) None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return in_int64(value, skips)
    if isinstance(value, float):
        return in_int64(int(value), skips) if math.isfinite(value) and value.is_integer() else None
    text = str(value).strip().rsplit("-", 1)[-1]
    if text.isascii() and text.isdigit():
        return in_int64(int(text), skips)
    try:
        number = float(text)
    except ValueError:
        return None
    return in_int64(int(number), skips) if math.isfinite(number) and number.is_integer() else None


def trace_id(source_ref: str, key: str) -> str:
    return hashlib.sha1(f"{source_ref}|{key}".encode()).hexdigest()[:16]


def finish_row(row: dict) -> dict:
    """Fill the derived outcome columns and make sure every schema column is present."""
    reward, err = row.get("reward"), row.get("error_type")
    row["passed"] = reward is not None and reward >= 1.0
    row["reward_positive"] = reward is not None and reward > 0
    row["is_infra_error"] = err in INFRA_ERRORS if err else False
    for name in TRACE_COLUMNS:
        row.setdefault(name, None)
    return row


def object_at(row: dict, key: str) -> dict:
    """``row[key]`` when it is a JSON object, else an empty one (absent, null or another type)."""
    value = row.get(key)
    return value if isinstance(value, dict) else {}


def first_str(row: dict, *keys: str) -> str | None:
    """The first usable text among ``keys``. Numbers count as ids: an integral float is the
    integer (a pandas int column with gaps reads back as 3.0 -> "3"); NaN/inf (a missing value in
    a float column) is absent, never the id "nan"."""
    for key in keys:
        value = row.get(key)
        if isinstance(value, float):
            value = (str(int(value)) if value.is_integer() else str(value)) if math.isfinite(value) else None
        elif isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def to_int(value, skips=None) -> int | None:
    """An int (floats truncated, int strings parsed); None when absent, unusable or outside
    int64 (noted on ``skips`` when given)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return in_int64(out, skips)


def to_count(value, skips=None) -> int | None:
    """A recorded token count: an int, an integral float or a digit string (within int64);
    else None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return in_int64(int(value), skips) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, str):
        value = value.strip()
        return in_int64(int(value), skips) if value.lstrip("-").isascii() and value.lstrip("-").isdigit() else None
    return in_int64(value, skips) if isinstance(value, int) else None


def to_float(value) -> float | None:
    """A recorded number (cost): finite int/float or numeric string; else None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value) if isinstance(value, (int, float, str)) else None
    except ValueError:
        return None
    return out if out is not None and math.isfinite(out) else None


def _moment(value) -> datetime | None:
    """ISO string / epoch -> datetime, keeping naive values naive (None when missing)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value), tz=UTC)
    return datetime.fromisoformat(_iso(value))


def duration_s(start, end, skips=None) -> float | None:
    """Seconds from start to end (Harbor phase timings). Both naive (Harbor's local time,
    read as UTC) or both with an offset are compared; a missing side, a naive/aware mix (the
    naive side's zone is unknowable), an unparseable value or end < start gives None, never
    an exception. Unparseable values are noted on ``skips`` when given."""
    try:
        a, b = _moment(start), _moment(end)
    except (TypeError, ValueError, OverflowError, OSError):
        if skips is not None:
            skips.note("unparseable phase timestamp (kept, duration null)")
        return None
    if a is None or b is None or (a.tzinfo is None) != (b.tzinfo is None):
        return None
    if a.tzinfo is None:
        a, b = a.replace(tzinfo=UTC), b.replace(tzinfo=UTC)
    seconds = (b - a).total_seconds()
    return seconds if seconds >= 0 else None
