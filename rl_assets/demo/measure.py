"""Small, explicit measurements of demo conversations, used to write (and test) ground truth.

Deliberately simpler than rl_assets.ingest.features: words, not tokens, and only the patterns
the demo generator itself emits, so the built-in deltas are checked independently of ingest.
"""

from __future__ import annotations

import re
import statistics

ERROR_RE = re.compile(r"command not found|^Traceback \(most recent call last\)|No such file or directory", re.M)
SELF_CORRECTION_RE = re.compile(r"let me try again|that didn't work|on second thought", re.I)
THINK_RE = re.compile(r"<think>(.*?)</think>", re.S)
CALL_RE = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.S)


def features(conv: list[dict]) -> dict:
    agent = [m["content"] for m in conv if m["role"] == "assistant"]
    obs = [m["content"] for m in conv if m["role"] == "user" and m["content"].startswith("New Terminal Output:")]
    think = [len(t.split()) for a in agent for t in THINK_RE.findall(a)]
    return {
        "tool_calls_total": sum(len(CALL_RE.findall(a)) for a in agent),
        "tool_responses": len(obs),
        "tool_errors": sum(bool(ERROR_RE.search(o)) for o in obs),
        "think_words": sum(think),
        "assistant_msgs": len(agent),
        "code_fence_blocks": sum(a.count("```") // 2 for a in agent),
        "self_correction_hits": sum(len(SELF_CORRECTION_RE.findall(a)) for a in agent),
    }


def summarize(convs: list[list[dict]]) -> dict:
    """Means per trace plus the pooled observation error rate and think words per agent turn."""
    fs = [features(c) for c in convs]
    out = {k: round(statistics.fmean(f[k] for f in fs), 4) for k in fs[0]}
    out["tool_error_rate"] = round(sum(f["tool_errors"] for f in fs) / max(sum(f["tool_responses"] for f in fs), 1), 4)
    out["think_words_per_turn"] = round(sum(f["think_words"] for f in fs) / max(sum(f["assistant_msgs"] for f in fs), 1), 2)
    return out
