"""Generation settings that differ between the two sides: a finding, because a setting change
(more tokens, another temperature, more attempts per task, another scorer) can masquerade as learning.

Compared: every setting either side recorded (the ``gen_settings`` column, filled by ingest from
what the files write: rl_assets/ingest/formats/reasoning_gym.py), plus the attempts per task observed in
the rows themselves, which every source has.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

NOT_RECORDED = "not recorded"
OBSERVED_ATTEMPTS = "attempts per task (observed)"


def _recorded(rows: Sequence[dict[str, Any]]) -> dict[str, set[str]]:
    values: dict[str, set[str]] = {}
    for row in rows:
        for name, value in _settings_of(row.get("gen_settings")).items():
            values.setdefault(name, set()).add(json.dumps(value) if not isinstance(value, str) else value)
    return values


def _settings_of(raw: object) -> dict[str, Any]:
    """One row's settings: the column is JSON object text (ingest writes it); a dict (rows built
    in memory) is the settings as they are; absent, empty or JSON null is nothing recorded.
    Anything else -- text that is not JSON, JSON that is not an object, a number -- is one
    "unreadable" setting, so that it shows as a difference instead of vanishing."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return {str(name): value for name, value in raw.items()}
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw
        if parsed is None or isinstance(parsed, dict):
            return parsed or {}
    return {"gen_settings": f"unreadable: {str(raw)[:40]!r}"}


def _attempts(keys: Sequence[str]) -> set[str]:
    """The most common number of rows per task on one side (ties: all of them)."""
    counts = Counter(Counter(keys).values())
    if not counts:
        return set()
    top = max(counts.values())
    return {str(n) for n, c in counts.items() if c == top}


def _shown(values: set[str]) -> str:
    return ", ".join(sorted(values)) if values else NOT_RECORDED


def settings_differences(
    before_rows: Sequence[dict[str, Any]],
    after_rows: Sequence[dict[str, Any]],
    before_keys: Sequence[str],
    after_keys: Sequence[str],
) -> list[dict[str, str]]:
    """[{setting, before, after}] for every setting whose recorded values differ between the sides
    (one side recording a setting the other does not counts: it cannot be shown equal)."""
    b, a = _recorded(before_rows), _recorded(after_rows)
    b[OBSERVED_ATTEMPTS], a[OBSERVED_ATTEMPTS] = _attempts(before_keys), _attempts(after_keys)
    out: list[dict[str, str]] = []
    for name in sorted(set(b) | set(a)):
        vb, va = b.get(name, set()), a.get(name, set())
        if vb != va and (vb or va):
            out.append({"setting": name, "before": _shown(vb), "after": _shown(va)})
    return out
