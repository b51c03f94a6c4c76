"""Small, explicit measurements of demo conversations, used to write (and test) ground truth.

Deliberately simpler than rl_assets.ingest.features: words, not tokens, and only the patterns
the demo generator itself emits, so the built-in deltas are checked independently of ingest.
`trace_features` covers every schema.FEATURE_COLUMNS name (the `*_tokens` ones counted in words).
"""

from __future__ import annotations

import json
import re
import statistics

from ..schema import FEATURE_COLUMNS

ERROR_RE = re.compile(r"command not found|^Traceback \(most recent call last\)|No such file or directory", re.M)
SELF_CORRECTION_RE = re.compile(r"let me try again|that didn't work|on second thought", re.I)
THINK_RE = re.compile(r"<think>(.*?)</think>", re.S)
CALL_RE = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.S)
PARSE_ERROR_MARKER = "Previous response had parsing errors"
HINT_MARKER = "[HINT FROM TEACHER]:"
COMPLETION_TOOL = "mark_task_complete"


def features(conv: list[dict]) -> dict:
    agent = [m["content"] for m in conv if m["role"] == "assistant"]
    obs = [m["content"] for m in conv if m["role"] == "user" and m["content"].startswith("New Terminal Output:")]
    think = [len(t.split()) for a in agent for t in THINK_RE.findall(a)]
    calls = [json.loads(c)["name"] for a in agent for c in CALL_RE.findall(a)]
    return {
        "tool_calls_total": len(calls),
        "tool_responses": len(obs),
        "tool_errors": sum(bool(ERROR_RE.search(o)) for o in obs),
        "think_blocks": len(think),
        "think_words": sum(think),
        "assistant_msgs": len(agent),
        "assistant_words": sum(len(a.split()) for a in agent),
        "code_fence_blocks": sum(a.count("```") // 2 for a in agent),
        "self_correction_hits": sum(len(SELF_CORRECTION_RE.findall(a)) for a in agent),
        "parse_error_markers": sum(m["content"].count(PARSE_ERROR_MARKER) for m in conv if m["role"] != "assistant"),
        "hint_count": sum(m["content"].count(HINT_MARKER) for m in conv if m["role"] != "assistant"),
        # the trace ends on an agent turn and no completion call was made anywhere
        "premature_stop": float(bool(conv) and conv[-1]["role"] == "assistant" and COMPLETION_TOOL not in calls),
    }


def trace_features(conv: list[dict]) -> dict:
    """One trace's schema.FEATURE_COLUMNS values (ratios None when undefined), words for tokens."""
    return columns_of(features(conv))


def columns_of(f: dict) -> dict:
    """schema.FEATURE_COLUMNS values from one trace's `features`."""
    out = {
        **{
            k: f[k]
            for k in (
                "tool_calls_total",
                "tool_responses",
                "tool_errors",
                "think_blocks",
                "assistant_msgs",
                "code_fence_blocks",
                "self_correction_hits",
                "parse_error_markers",
                "hint_count",
                "premature_stop",
            )
        },
        "tool_error_rate": f["tool_errors"] / f["tool_responses"] if f["tool_responses"] else None,
        "think_tokens": f["think_words"],
        "think_token_ratio": f["think_words"] / f["assistant_words"] if f["assistant_words"] else None,
        "assistant_tokens": f["assistant_words"],
        "mean_assistant_tokens": f["assistant_words"] / f["assistant_msgs"] if f["assistant_msgs"] else None,
    }
    return {k: out[k] for k in FEATURE_COLUMNS}


def feature_means(convs: list[list[dict]]) -> dict:
    """Per-trace mean of every schema.FEATURE_COLUMNS feature (traces where a ratio is undefined
    are left out of that ratio's mean, as Q1 does with nulls)."""
    return means_of([features(c) for c in convs])


def means_of(feats: list[dict]) -> dict:
    """`feature_means` from the traces' `features` (a caller that has them measures nothing twice)."""
    fs = [columns_of(f) for f in feats]
    out = {}
    for k in FEATURE_COLUMNS:
        xs = [f[k] for f in fs if f[k] is not None]
        out[k] = round(statistics.fmean(xs), 4) if xs else None
    return out


def summary_of(fs: list[dict]) -> dict:
    """From the traces' `features`: means per trace plus the pooled observation error rate and think
    words per agent turn."""
    out = {k: round(statistics.fmean(f[k] for f in fs), 4) for k in fs[0]}
    out["tool_error_rate"] = round(sum(f["tool_errors"] for f in fs) / max(sum(f["tool_responses"] for f in fs), 1), 4)
    out["think_words_per_turn"] = round(
        sum(f["think_words"] for f in fs) / max(sum(f["assistant_msgs"] for f in fs), 1), 2
    )
    return out
