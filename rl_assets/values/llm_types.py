"""Value types an analysis and the LLM client exchange (neutral: imports no layer package).

An analysis builds ``LLMRequest`` objects, keyed by ``cache_key``; the client in
resources/llm/client.py answers each key with one ``ItemResult``. They live here, not in the
resource, so pure analyses never import the source layer (docs/contracts.md, "Layers").

Key = sha256(model | prompt version | content hash of the inputs): a new prompt version or model
never reuses an old answer, while a re-run reuses every answer already paid for.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

try:  # a dependency; without it every key is written by json.dumps alone (the same text)
    import orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    orjson = None  # type: ignore[assignment]  # the module or None: _canonical_json tests for None

# json.dumps(value, sort_keys=True, ensure_ascii=False, default=str) is this encoder's encode(value);
# one instance, not one built per call (json.dumps builds one whenever an option is not its default)
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
LONG_TEXT = 2048  # a str value this long is escaped by orjson (below it, json.dumps' call overhead is smaller)


def content_hash(inputs: Any) -> str:
    """Stable hash of JSON-able inputs (key order irrelevant): sha256 of
    json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)."""
    return hashlib.sha256(_canonical_json(inputs).encode()).hexdigest()


def _canonical_json(inputs: Any) -> str:
    """json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str), the text every cache key
    hashes. A dict with str keys holding a long text (a failure-mode transcript, ~20k chars) is
    written member by member, the long texts escaped by orjson: the standard library's escaping was
    most of a key's cost, and orjson escapes every character as json.dumps(ensure_ascii=False)
    does (tests/analysis/test_failure_mode_keys_fast.py holds the two equal)."""
    if (
        orjson is None
        or inputs.__class__ is not dict
        or not any(v.__class__ is str and len(v) >= LONG_TEXT for v in inputs.values())
        or not all(k.__class__ is str for k in inputs)
    ):
        return _ENCODER.encode(inputs)
    members = (f"{_ENCODER.encode(k)}: {_member(inputs[k])}" for k in sorted(inputs))
    return "{" + ", ".join(members) + "}"


def _member(value: Any) -> str:
    if value.__class__ is str and len(value) >= LONG_TEXT:
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # a lone surrogate: json.dumps writes it (the key's encode() then refuses it)
            pass
    return _ENCODER.encode(value)


def cache_key(model: str, prompt_version: str, inputs: Any) -> str:
    return hashlib.sha256(f"{model}|{prompt_version}|{content_hash(inputs)}".encode()).hexdigest()


@dataclass
class LLMRequest:
    keys: list[str]  # cache keys answered by this one call (1 for a judgment, k for a batch)
    messages: list[dict[str, Any]]
    schema_name: str
    schema: dict[str, Any]
    # parsed reply -> {key: validated value}; ValueError = whole reply unusable, a missing key =
    # that item failed (per-item isolation inside a batch).
    interpret: Callable[[Any], dict[str, Any]]
    offline: Callable[[], Any] | None = None  # heuristic producing the same JSON shape
    label: str = ""


@dataclass
class ItemResult:
    key: str
    status: str  # cached | fresh | offline | failed | budget
    value: Any = None
    error: str | None = None


class LLMAnswers(Protocol):
    """What an analysis uses of the client (resources/llm/client.py, LLMClient): its model, and
    one answer per request key."""

    model: str

    def run(self, requests: list[LLMRequest]) -> dict[str, ItemResult]: ...
