"""Failure-mode annotation: a fixed categorical taxonomy plus one short text per trace.

The LLM must pick one TAXONOMY category per trace (free text alone gives one bucket per row,
docs/original_pipeline.md W3); a reply item with an unknown category
or for an unknown trace counts as that item's failure (retried next run), while the other items
of the same batch are kept (per-item isolation). The offline heuristic labels from recorded
outcome fields only.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any, Protocol

from rl_assets.analysis.judge.prompts import render_conversation
from rl_assets.values.llm_types import LLMAnswers

PROMPT_VERSION = "failure-modes-v1"
TAXONOMY = ("success", "wrong_answer", "timeout", "context_overflow", "tool_misuse", "gave_up", "format_error",
            "loop", "infra_error", "other")  # fmt: skip

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["items"],
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["trace_id", "category", "summary"],
                "properties": {
                    "trace_id": {"type": "string"},
                    "category": {"type": "string", "enum": list(TAXONOMY)},
                    "summary": {"type": "string"},
                },
            },
        }
    },
}

SYSTEM = (
    "You are an expert evaluator of autonomous agents. For each trial, decide the ONE category that "
    "best explains its outcome, from: " + ", ".join(TAXONOMY) + ". Use 'success' only when the "
    "recorded outcome passed; 'infra_error' only for environment/sandbox failures, not the agent's. "
    "Then write 1-3 plain sentences citing the concrete commands or messages that show it. "
    'Reply with one JSON object: {"items": [{"trace_id": ..., "category": ..., "summary": ...}]}, '
    "one item per trial, trace_id copied exactly."
)

OUTCOME_FIELDS = ("task_id", "reward", "passed", "error_type", "is_infra_error", "n_turns", "tool_errors")


def item_inputs(row: dict[str, Any], char_limit: int) -> dict[str, Any]:
    """What one trace contributes to a prompt; its hash (with model + prompt version) is the cache key."""
    return {
        "trace_id": row["trace_id"],
        **{k: row.get(k) for k in OUTCOME_FIELDS},
        "transcript": render_conversation(row.get("conversation"), char_limit),
    }


def build_messages(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    sections = []
    for it in items:
        meta = ", ".join(f"{k}={it[k]}" for k in OUTCOME_FIELDS)
        sections.append(f"### Trial {it['trace_id']}\n{meta}\n\n{it['transcript']}")
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Classify these trials.\n\n" + "\n\n".join(sections)},
    ]


class _AnswerCache(Protocol):
    def get(self, key: str) -> Any | None: ...


class CachedLLM(LLMAnswers, Protocol):
    """LLMAnswers plus the cache it reads first, so a resumed run never re-sends an answered trace."""

    @property
    def cache(self) -> _AnswerCache | None: ...

    @property
    def force(self) -> bool: ...


def interpret(obj: Any, keys: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Reply -> {cache key: {category, summary}} for the items that are valid; others are absent."""
    items = obj.get("items") if isinstance(obj, dict) else obj
    if not isinstance(items, list):
        raise ValueError("reply has no 'items' list")
    out: dict[str, dict[str, Any]] = {}
    for it in items:
        if not isinstance(it, dict):
            continue
        key = keys.get(str(it.get("trace_id", "")).strip())
        category = str(it.get("category", "")).strip().lower().replace("-", "_").replace(" ", "_")
        if key and category in TAXONOMY and key not in out:
            out[key] = {"category": category, "summary": str(it.get("summary") or "")[:1000]}
    return out


def _offline_items(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The reply the offline heuristic gives for one batch (same JSON shape as the LLM's)."""
    return {"items": [{"trace_id": r["trace_id"], **heuristic_label(r)} for r in rows]}


def heuristic_label(row: dict[str, Any]) -> dict[str, Any]:
    """Offline label from recorded outcome fields; never reads the transcript."""
    err = str(row.get("error_type") or "")
    rules = (
        (row.get("is_infra_error"), "infra_error", f"infrastructure error {err}"),
        (row.get("passed"), "success", "the verifier gave full credit"),
        ("context" in err.lower() or "length" in err.lower(), "context_overflow", f"error {err}"),
        ("timeout" in err.lower(), "timeout", f"agent-side timeout {err}"),
        ((row.get("parse_error_markers") or 0) > 0, "format_error", "the harness reported unparseable responses"),
        ((row.get("tool_error_rate") or 0) >= 0.5, "tool_misuse", "at least half of the tool calls returned errors"),
        ((row.get("premature_stop") or 0) >= 1, "gave_up", "the trace ends on an agent turn without completing"),
        (row.get("reward") is not None, "wrong_answer", f"scored {row.get('reward')} without full credit"),
    )
    for hit, category, why in rules:
        if hit:
            return {"category": category, "summary": f"Offline heuristic (not an LLM): {why}."}
    return {"category": "other", "summary": f"Offline heuristic (not an LLM): no rule matched (error {err or 'none'})."}


def distribution(labels: dict[str, list[str]]) -> dict[str, Any]:
    """Per-side category counts and shares, and the post-RL minus baseline share shift."""
    out: dict[str, Any] = {"counts": {}, "shares": {}, "shift": {}}
    for side, cats in labels.items():
        c = Counter(cats)
        out["counts"][side] = {k: c.get(k, 0) for k in TAXONOMY}
        out["shares"][side] = {k: (c.get(k, 0) / len(cats) if cats else None) for k in TAXONOMY}
    b, p = out["shares"].get("baseline", {}), out["shares"].get("post_rl", {})
    out["shift"] = {k: (p[k] - b[k]) if p.get(k) is not None and b.get(k) is not None else None for k in TAXONOMY}
    return out


def annotate(
    rows: list[dict[str, Any]],
    client: CachedLLM,
    *,
    batch_size: int = 6,
    char_limit: int = 20000,
    known: dict[str, dict[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """trace_id -> {key, category, summary, status, error} through an injected LLM client.

    Rows already answered (the client's cache, or ``known`` = the previous output by key) are
    never re-sent, so a killed run resumes where it stopped; only the rest are batched.
    """
    from rl_assets.values.llm_types import LLMRequest, cache_key

    known = known or {}
    out: dict[str, dict[str, Any]] = {}
    todo: list[tuple[dict[str, Any], dict[str, Any], str]] = []
    for row in rows:
        inputs = item_inputs(row, char_limit)
        key = cache_key(client.model, PROMPT_VERSION, inputs)
        hit = known.get(key) or (client.cache.get(key) if client.cache is not None and not client.force else None)
        if hit:
            out[row["trace_id"]] = {"key": key, **hit, "status": "cached", "error": None}
        else:
            todo.append((row, inputs, key))
    requests = []
    for i in range(0, len(todo), max(1, batch_size)):
        chunk = todo[i : i + batch_size]
        keys = {inp["trace_id"]: key for _, inp, key in chunk}
        requests.append(
            LLMRequest(
                keys=[key for _, _, key in chunk],
                messages=build_messages([inp for _, inp, _ in chunk]),
                schema_name="failure_modes",
                schema=SCHEMA,
                interpret=partial(interpret, keys=keys),
                offline=partial(_offline_items, [r for r, _, _ in chunk]),
                label=f"batch {i // max(1, batch_size) + 1} ({len(chunk)} traces)",
            )
        )
    results = client.run(requests)
    for row, _, key in todo:
        res = results.get(key)
        value = res.value if res is not None and res.value else {"category": None, "summary": None}
        out[row["trace_id"]] = {
            "key": key,
            **value,
            "status": res.status if res else "missing",
            "error": res.error if res else "not run",
        }
    return out
