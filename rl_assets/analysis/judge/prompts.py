"""Judge prompt, output schema and the fixed tag vocabulary (docs/original_pipeline.md, LLM judge).

The two traces are anonymised as "Trace A" / "Trace B" and every pair is asked in both orders
(docs/original_pipeline.md W10), so the judge cannot
favour "the RL one" or "the second one". Tags describe how Trace B differs from Trace A;
``aggregate.orient`` turns them into post-RL-vs-baseline terms.
Bump PROMPT_VERSION on any change here: it is part of every cache key.
"""

from __future__ import annotations

import json
from typing import Any

# json.loads, parsed by orjson where that gives the same values (~2x on trace-sized text)
from rl_assets.values.json_exact import loads as _parse

PROMPT_VERSION = "judge-v1"

TAGS = (
    "more-verbose", "less-verbose", "more-tool-calls", "fewer-tool-calls", "different-tool-strategy",
    "more-careful-planning", "more-impulsive", "fewer-tool-errors", "more-tool-errors",
    "more-self-correction", "less-self-correction", "more-thinking-budget", "less-thinking-budget",
    "different-failure-mode", "different-solution-strategy", "more-defensive-coding", "more-decisive",
    "more-hesitant", "shorter-trace", "longer-trace", "ran-out-of-context", "gave-up-early",
    "completed-successfully", "no-substantive-change",
)  # fmt: skip
assert len(TAGS) == 24

WINNERS = ("A", "B", "tie")
CONFIDENCE = ("high", "medium", "low")

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["behavior_change", "tags", "confidence", "winner", "winner_reason"],
    "properties": {
        "behavior_change": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string", "enum": list(TAGS)}},
        "confidence": {"type": "string", "enum": list(CONFIDENCE)},
        "winner": {"type": "string", "enum": list(WINNERS)},
        "winner_reason": {"type": "string"},
    },
}

SYSTEM = (
    "You are an expert RL researcher reviewing two agent traces on the same task. Identify "
    "concretely what Trace B does differently from Trace A, citing commands, tool calls or "
    "phrases. Then say which trace handled the task better. You are not told which model "
    "produced which trace; judge the behaviour only.\n"
    "Reply with ONE JSON object and nothing else: "
    '{"behavior_change": "2-5 sentences on what B did differently from A (not whether it succeeded)", '
    '"tags": [1-4 tags describing B relative to A, chosen ONLY from: ' + ", ".join(TAGS) + "], "
    '"confidence": "high|medium|low (that the difference is real, not sampling noise)", '
    '"winner": "A|B|tie", "winner_reason": "one sentence"}'
)

# Measured features shown to the judge next to each transcript (same order for A and B).
SHOWN = (
    "reward",
    "n_turns",
    "tool_calls_total",
    "tool_errors",
    "assistant_tokens",
    "think_tokens",
    "self_correction_hits",
)


def render_conversation(conversation: str | None, budget: int) -> str:
    """`[role] content` blocks, middle-truncated to ``budget`` chars (first 60 %, last 40 %)."""
    try:
        messages = _parse(conversation or "[]")
    except ValueError:
        messages = [{"role": "raw", "content": conversation}]
    blocks = []
    for m in messages if isinstance(messages, list) else []:
        if not isinstance(m, dict):
            continue
        content = m.get("content")
        content = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        if m.get("tool_calls"):
            content += "\n[tool_calls] " + json.dumps(m["tool_calls"], ensure_ascii=False)[:400]
        blocks.append(f"[{m.get('role', '?')}] {content}")
    text = "\n\n".join(blocks) or "[empty conversation]"
    if len(text) <= budget:
        return text
    head, tail = int(budget * 0.6), int(budget * 0.4)
    return f"{text[:head]}\n[... {len(text) - head - tail} chars elided ...]\n{text[-tail:]}"


def _side(label: str, row: dict[str, Any], budget: int) -> str:
    stats = ", ".join(f"{k}={row.get(k)}" for k in SHOWN)
    return f"## {label}\n{stats}\n\n{render_conversation(row.get('conversation'), budget)}"


def build_messages(
    task_id: str, trace_a: dict[str, Any], trace_b: dict[str, Any], char_budget: int = 12000
) -> list[dict[str, Any]]:
    user = (
        f"Task: {task_id}\n\n{_side('Trace A', trace_a, char_budget)}\n\n{_side('Trace B', trace_b, char_budget)}"
        "\n\nReturn the JSON object now."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
