"""Combine the two orders of each pair, orient to baseline-vs-post-RL, and compute win rates.

A pair counts only when BOTH orders were judged. If the orders disagree (including one "tie"),
the pair is a tie and counts as an order flip: the flip rate is how much position, not the
traces, decided the verdict. Win shares use Wilson intervals from analysis.stats.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rl_assets.analysis.stats import wilson_interval

_OPPOSITES = (
    ("more-verbose", "less-verbose"), ("more-tool-calls", "fewer-tool-calls"),
    ("more-tool-errors", "fewer-tool-errors"), ("more-self-correction", "less-self-correction"),
    ("more-thinking-budget", "less-thinking-budget"), ("more-careful-planning", "more-impulsive"),
    ("more-decisive", "more-hesitant"), ("longer-trace", "shorter-trace"),
)  # fmt: skip
INVERSE = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
SYMMETRIC = {
    "different-tool-strategy",
    "different-failure-mode",
    "different-solution-strategy",
    "no-substantive-change",
}
SIDES = ("baseline", "post-rl", "tie")
_CONF_RANK = {"low": 0, "medium": 1, "high": 2}


def orient(verdict: dict[str, Any], post_is_b: bool) -> dict[str, Any]:
    """Winner as a side; tags as "post-RL relative to baseline".

    Tags describe B relative to A. When B is the baseline, directional tags are inverted; state
    tags with no opposite (e.g. gave-up-early, said of the baseline) cannot be restated about the
    post-RL trace and are set aside as ``unoriented``.
    """
    side = {"A": "baseline", "B": "post-rl"} if post_is_b else {"A": "post-rl", "B": "baseline"}
    winner = side.get(verdict["winner"], "tie")
    if post_is_b:
        return {"winner": winner, "tags": list(verdict["tags"]), "unoriented": []}
    tags = [INVERSE.get(t, t) for t in verdict["tags"] if t in INVERSE or t in SYMMETRIC]
    return {
        "winner": winner,
        "tags": tags,
        "unoriented": [t for t in verdict["tags"] if t not in INVERSE and t not in SYMMETRIC],
    }


def combine_pair(task: str, probe: str, ab: dict[str, Any] | None, ba: dict[str, Any] | None) -> dict[str, Any]:
    """ab: verdict with A=baseline, B=post-RL; ba: the swapped order. None = that order failed."""
    out = {"task": task, "probe": probe, "orders": {"baseline_first": ab, "post_rl_first": ba}}
    if ab is None or ba is None:
        return {**out, "status": "incomplete", "winner": None}
    o1, o2 = orient(ab, post_is_b=True), orient(ba, post_is_b=False)
    agree = o1["winner"] == o2["winner"]
    # validate_verdict makes every confidence a ranked value
    conf = min((ab["confidence"], ba["confidence"]), key=_CONF_RANK.__getitem__)
    return {
        **out,
        "status": "judged",
        "winner": o1["winner"] if agree else "tie",
        "order_flip": not agree,
        "confidence": conf,
        "tags": sorted(set(o1["tags"]) | set(o2["tags"])),
        "tags_both_orders": sorted(set(o1["tags"]) & set(o2["tags"])),
        "unoriented_tags": o2["unoriented"],
        "dropped_tags": ab.get("dropped_tags", []) + ba.get("dropped_tags", []),
        "winner_reason": ab.get("winner_reason", ""),
        "behavior_change": ab.get("behavior_change", ""),
    }


def _share(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(k, n)
    return {"count": k, "share": (k / n) if n else None, "wilson95": [round(lo, 4), round(hi, 4)]}


def summarize(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Win rates, flip rate, confidence and tag distributions of one probe."""
    judged = [p for p in pairs if p["status"] == "judged"]
    n = len(judged)
    wins = Counter(p["winner"] for p in judged)
    decisive = wins["post-rl"] + wins["baseline"]
    tags = Counter(t for p in judged for t in p["tags"])
    flips = sum(p["order_flip"] for p in judged)
    return {
        "attempted": len(pairs),
        "judged": n,
        "win": {side: _share(wins[side], n) for side in SIDES},
        # Post-RL share among decisive pairs: the headline "does the judge prefer RL" number.
        "post_rl_win_rate_decisive": _share(wins["post-rl"], decisive),
        "order_flips": flips,
        "order_flip_rate": (flips / n) if n else None,
        "confidence": dict(Counter(p["confidence"] for p in judged)),
        "tags": {t: {"count": c, "share": c / n} for t, c in tags.most_common()},
        "dropped_tags": sum(len(p["dropped_tags"]) for p in judged),
    }
