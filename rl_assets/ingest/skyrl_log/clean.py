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
LOGURU_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)\s*\|\s*(\w+)\s*\|\s*([^ ]*) - ?")

# A tqdm bar redrawn with "\r" leaves its last frame glued before the next loguru line once W&B or a
# terminal capture turns the "\r" into nothing: "Training Step Progress: ... 1.2s/it]2025-08-06 22:52:59.897 | INFO
# | ... - Started: 'step'". Real SkyRL runs print EVERY `Started: 'step'` that way, so the bar is cut off.
TQDM_GLUED_RE = re.compile(r"(?<=\])\s*(?=\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})")

_DAY_CACHE: dict[tuple[str, str, str], int] = {}


class BadTimestamp(ValueError):
    """A loguru-shaped line whose date cannot exist (``2026-13-01 ...``): a malformed line, not a crash."""


def _day_epoch(y: str, m: str, d: str) -> int:
    """Seconds from the UTC epoch to midnight of that day; cached because logs span few days."""
    key = (y, m, d)
    val = _DAY_CACHE.get(key)
    if val is None:
        year, month, day = int(y), int(m), int(d)
        if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
            raise BadTimestamp(f"no such date {y}-{m}-{d}")
        val = calendar.timegm((year, month, day, 0, 0, 0))
        _DAY_CACHE[key] = val
    return val


def clean_line(raw: str) -> tuple[str, float | None, str]:
    """Return (message, epoch seconds or None, logger location) for one raw log line.

    Loguru timestamps carry no zone; SkyRL clusters log in UTC, so they are read as UTC (the one
    assumption the step-time join rests on; docs/q2.md says so). Raises BadTimestamp for a date that
    cannot exist; the parser counts that line as malformed with its file and line number.
    """
    if "\x1b" in raw:
        raw = ANSI_RE.sub("", raw)
    line = raw.rstrip("\r\n")
    if line.startswith("("):
        line = RAY_PREFIX_RE.sub("", line, count=1)
    if "]" in line and " | " in line and not line[:1].isdigit():
        cut = TQDM_GLUED_RE.search(line)
        if cut:
            line = line[cut.end() :]
    if len(line) > 20 and line[4] == "-" and line[0] in "12":
        m = LOGURU_RE.match(line)
        if m:
            y, mo, d, hh, mm, ss, _level, where = m.groups()
            if int(hh) > 23 or int(mm) > 59 or float(ss) >= 61:
                raise BadTimestamp(f"no such time {hh}:{mm}:{ss}")
            ts = _day_epoch(y, mo, d) + int(hh) * 3600 + int(mm) * 60 + float(ss)
            return line[m.end() :], ts, where
    return line, None, ""
