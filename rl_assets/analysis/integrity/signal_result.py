"""The record every integrity signal returns, so the verdict, the report and the plot read one shape."""

from __future__ import annotations

from rl_assets.analysis.integrity import rules


def signal(name: str, status: str, reason: str, *, onset_step: int | None = None,
           at_onset: dict | None = None, at_end: dict | None = None, **extra) -> dict:
    """status is rules.HOLDS / DOES_NOT_HOLD / NO_DATA; reason says why in numbers."""
    return {"name": name, "status": status, "reason": reason, "onset_step": onset_step,
            "at_onset": at_onset, "at_end": at_end, "rule": rules.SIGNAL_RULES[name], **extra}


def no_data(name: str, reason: str) -> dict:
    return signal(name, rules.NO_DATA, reason)
