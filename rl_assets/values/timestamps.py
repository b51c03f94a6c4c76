"""Timestamps as aware UTC datetimes: the one parser every layer shares (registry backends,
the eval-pair resolver). Neutral: it imports nothing from rldelta, so a source (resources/) and
an analysis can both use it without one importing the other."""

from __future__ import annotations

from datetime import UTC, datetime


class TimestampError(ValueError):
    """A value that should be a time is not; the message names where it came from."""


def parse_utc(value: object, where: str = "") -> datetime | None:
    """ISO string or datetime -> aware UTC datetime (naive values are taken as UTC); None or ""
    -> None. `where` names the row and column for the error message (e.g.
    "sandbox_jobs[abc].ended_at").

    >>> parse_utc("2026-05-01T10:30:00+02:00").isoformat()
    '2026-05-01T08:30:00+00:00'
    >>> parse_utc("2026-05-01T08:30:00Z") == parse_utc("2026-05-01 08:30:00")
    True
    """
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise TimestampError(f"{where or 'timestamp'}: {value!r} is not an ISO-8601 time") from exc
    elif isinstance(value, datetime):
        when = value
    else:
        raise TimestampError(f"{where or 'timestamp'}: {value!r} is not a time")
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)
