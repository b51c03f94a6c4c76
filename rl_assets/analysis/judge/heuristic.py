"""The offline judge: a rule over measured features, used when no LLM endpoint is configured.

It replies in the LLM's JSON shape so the rest of the pipeline is identical, but it reads no
transcript: it cannot see strategy, planning or correctness beyond the recorded reward, and it
is symmetric by construction (its order-flip rate is 0 by design, not by evidence). Every output
carries the label OFFLINE_LABEL.
"""

from __future__ import annotations

from typing import Any

# (feature, tag when B is clearly higher, tag when B is clearly lower)
_DIRECTIONAL = (
    ("assistant_tokens", "more-verbose", "less-verbose"),
    ("tool_calls_total", "more-tool-calls", "fewer-tool-calls"),
    ("tool_errors", "more-tool-errors", "fewer-tool-errors"),
    ("self_correction_hits", "more-self-correction", "less-self-correction"),
    ("think_tokens", "more-thinking-budget", "less-thinking-budget"),
    ("n_turns", "longer-trace", "shorter-trace"),
)
REL_THRESHOLD = 0.2  # a change under 20 % of the larger value is treated as noise


def _num(row: dict[str, Any], name: str) -> float:
    return float(row.get(name) or 0.0)


def _winner(a: dict[str, Any], b: dict[str, Any]) -> tuple[str, str]:
    if bool(a.get("passed")) != bool(b.get("passed")):
        return ("B" if b.get("passed") else "A"), "only one trace passed the verifier"
    ra, rb = a.get("reward"), b.get("reward")
    if ra is not None and rb is not None and ra != rb:
        return ("B" if rb > ra else "A"), f"higher reward ({max(ra, rb)} vs {min(ra, rb)})"
    ea, eb = _num(a, "tool_errors"), _num(b, "tool_errors")
    if ea != eb:
        return ("B" if eb < ea else "A"), f"fewer tool errors ({min(ea, eb):g} vs {max(ea, eb):g})"
    return "tie", "same outcome and the same number of tool errors"


def heuristic_verdict(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Judge-shaped JSON from the feature rows of Trace A and Trace B."""
    tags, notes = [], []
    for feat, up, down in _DIRECTIONAL:
        x, y = _num(a, feat), _num(b, feat)
        if abs(y - x) > REL_THRESHOLD * max(abs(x), abs(y), 1.0):
            tags.append(up if y > x else down)
            notes.append(f"{feat} {x:g} -> {y:g}")
    if b.get("passed") and not a.get("passed"):
        tags.append("completed-successfully")
    winner, reason = _winner(a, b)
    return {
        "behavior_change": "Offline heuristic (not an LLM), from measured features only: "
        + ("; ".join(notes) if notes else "no feature moved more than 20 %")
        + ".",
        "tags": tags[:4] or ["no-substantive-change"],
        "confidence": "low",
        "winner": winner,
        "winner_reason": reason,
    }
