"""Per-line cleaning shared by every SkyRL line shape: ANSI codes, Ray actor prefixes, loguru time.

Kept branch-light on purpose: the reader calls ``clean_line`` on every line of 100 MB logs, so
each step is guarded by a cheap substring test before any regex runs.
"""

from __future__ import annotations

import calendar
import re

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# "(skyrl_entrypoint pid=8444) " or "(AsyncVLLMInferenceEngine pid=1, ip=10.0.0.1) "; Ray may repeat
# the prefix when a worker re-emits a line, hence the "+".
RAY_PREFIX_RE = re.compile(r"^(?:\([A-Za-z_][\w.:-]* pid=\d+(?:, ip=[\d.a-fA-F:]+)?\)\s*)+")
# loguru default format: "2026-07-14 09:00:00.000 | INFO     | module:function:line - message"
LOGURU_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)\s*\|\s*(\w+)\s*\|\s*([^ ]*) - ?"
)

_DAY_CACHE: dict[tuple[str, str, str], int] = {}


def _day_epoch(y: str, m: str, d: str) -> int:
    """Seconds from the UTC epoch to midnight of that day; cached because logs span few days."""
    key = (y, m, d)
    val = _DAY_CACHE.get(key)
    if val is None:
        val = calendar.timegm((int(y), int(m), int(d), 0, 0, 0))
        _DAY_CACHE[key] = val
    return val


def clean_line(raw: str) -> tuple[str, float | None, str]:
    """Return (message, epoch seconds or None, logger location) for one raw log line.

    Loguru timestamps carry no zone; SkyRL clusters log in UTC, so they are read as UTC (the one
    assumption the step-time join rests on; docs/q2.md says so).
    """
    if "\x1b" in raw:
        raw = ANSI_RE.sub("", raw)
    line = raw.rstrip("\r\n")
    if line.startswith("("):
        line = RAY_PREFIX_RE.sub("", line, count=1)
    if len(line) > 20 and line[4] == "-" and line[0] in "12":
        m = LOGURU_RE.match(line)
        if m:
            y, mo, d, hh, mm, ss, _level, where = m.groups()
            ts = _day_epoch(y, mo, d) + int(hh) * 3600 + int(mm) * 60 + float(ss)
            return line[m.end() :], ts, where
    return line, None, ""
