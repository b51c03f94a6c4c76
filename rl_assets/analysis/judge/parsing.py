"""Validate one judge reply (already JSON-decoded) into a clean verdict.

An unknown tag is dropped and counted, an unreadable winner is a *failure* (ValueError: not
cached, retried next run), and nothing is invented.
"""

from __future__ import annotations

from rl_assets.analysis.judge.prompts import CONFIDENCE, TAGS

_WINNER_ALIASES = {
    "a": "A", "trace a": "A", "trace_a": "A",
    "b": "B", "trace b": "B", "trace_b": "B",
    "tie": "tie", "draw": "tie", "equal": "tie", "neither": "tie", "none": "tie",
}  # fmt: skip


def _norm_tag(tag) -> str:
    return str(tag).strip().lower().replace("_", "-").replace(" ", "-")


def validate_verdict(obj) -> dict:
    """-> {winner A|B|tie, confidence, tags, dropped_tags, behavior_change, winner_reason}."""
    if isinstance(obj, list) and len(obj) == 1:
        obj = obj[0]  # some servers wrap the object in a list
    if not isinstance(obj, dict):
        raise ValueError(f"judge reply is {type(obj).__name__}, not an object")
    winner = _WINNER_ALIASES.get(str(obj.get("winner", "")).strip().lower())
    if winner is None:
        raise ValueError(f"judge reply has no usable winner: {str(obj.get('winner'))[:40]!r}")
    raw_tags = obj.get("tags") or []
    raw_tags = [raw_tags] if isinstance(raw_tags, str) else list(raw_tags)
    tags, dropped = [], []
    for t in raw_tags:
        (tags if _norm_tag(t) in TAGS else dropped).append(_norm_tag(t) if _norm_tag(t) in TAGS else str(t)[:40])
    confidence = str(obj.get("confidence", "")).strip().lower()
    return {
        "winner": winner,
        # An unrecognised confidence is treated as the weakest, and flagged, rather than failing a
        # reply whose verdict is otherwise usable.
        "confidence": confidence if confidence in CONFIDENCE else "low",
        "confidence_valid": confidence in CONFIDENCE,
        "tags": list(dict.fromkeys(tags)),
        "dropped_tags": dropped,
        "behavior_change": str(obj.get("behavior_change") or "")[:2000],
        "winner_reason": str(obj.get("winner_reason") or "")[:500],
    }
