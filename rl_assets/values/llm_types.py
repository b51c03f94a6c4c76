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


def content_hash(inputs: Any) -> str:
    """Stable hash of JSON-able inputs (key order irrelevant)."""
    blob = json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


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
