"""Spend control for LLM calls: price table, token estimates, the budget guard, the usage ledger.

A call is only *started* when its worst case
(prompt tokens + max output tokens) still fits the remaining token and USD budget, counting
calls already in flight (docs/original_pipeline.md W18).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

# USD per 1M tokens (input, output), list prices. Unknown models fall back to the most
# expensive known entry so an unpriced model can only be over-estimated, never under.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-5": (1.25, 10.0),
    "gpt-5-2025-08-07": (1.25, 10.0),
    "gpt-5.1": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
}
_FALLBACK_PRICE = (max(p[0] for p in PRICES_PER_MTOK.values()), max(p[1] for p in PRICES_PER_MTOK.values()))


def price_for(model: str, override: tuple[float | None, float | None] = (None, None)) -> tuple[float, float]:
    base = PRICES_PER_MTOK.get(model.split("/")[-1], _FALLBACK_PRICE)
    return (override[0] if override[0] is not None else base[0], override[1] if override[1] is not None else base[1])


def estimate_tokens(messages: list[dict]) -> int:
    """Upper-side token estimate without a tokenizer: ~3 chars per token plus per-message overhead."""
    chars = sum(len(str(m.get("content") or "")) for m in messages)
    return math.ceil(chars / 3) + 8 * len(messages)


def least_tokens(text: str) -> int:
    """The fewest tokens a reply of this length plausibly is: chars/4, the usual figure for English (code and
    JSON run fewer characters per token, other scripts far fewer), so an honest count is rarely below it."""
    return math.ceil(len(text) / 4)


def cost_usd(price: tuple[float, float], prompt_tokens: int, completion_tokens: int) -> float:
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6


class BudgetExceeded(RuntimeError):
    """Starting this call could exceed the run's token or USD budget."""


class Budget:
    """Thread-safe reservations: ``reserve`` before a call, ``settle`` with the real usage after."""

    def __init__(self, max_tokens: int | None, max_usd: float | None):
        self.max_tokens, self.max_usd = max_tokens, max_usd
        self.used_tokens, self.used_usd = 0, 0.0
        self._held_tokens, self._held_usd = 0, 0.0
        self.refused = 0
        self._lock = threading.Lock()

    def reserve(self, tokens: int, usd: float) -> None:
        with self._lock:
            over_t = self.max_tokens is not None and self.used_tokens + self._held_tokens + tokens > self.max_tokens
            over_u = self.max_usd is not None and self.used_usd + self._held_usd + usd > self.max_usd + 1e-12
            if over_t or over_u:
                self.refused += 1
                raise BudgetExceeded(
                    f"call needs up to {tokens} tokens / ${usd:.4f}; used {self.used_tokens} tokens / "
                    f"${self.used_usd:.4f} (+{self._held_tokens} in flight) of "
                    f"{self.max_tokens or 'unlimited'} tokens / "
                    f"${self.max_usd if self.max_usd is not None else 'unlimited'}"
                )
            self._held_tokens += tokens
            self._held_usd += usd

    def settle(self, reserved_tokens: int, reserved_usd: float, tokens: int, usd: float) -> None:
        with self._lock:
            self._held_tokens -= reserved_tokens
            self._held_usd -= reserved_usd
            self.used_tokens += tokens
            self.used_usd += usd

    def snapshot(self) -> dict:
        with self._lock:
            return {
                "used_tokens": self.used_tokens,
                "used_usd": round(self.used_usd, 6),
                "max_tokens": self.max_tokens,
                "max_usd": self.max_usd,
                "refused_calls": self.refused,
            }


@dataclass
class Ledger:
    """Append-only JSONL of every call attempt, one file per model partition (slug)."""

    path: Path

    def __post_init__(self):
        self._lock = threading.Lock()

    def append(self, **record) -> None:
        record.setdefault("ts", time.time())
        line = json.dumps(record, sort_keys=True) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One write() per line with O_APPEND: a killed run leaves whole lines, never a torn one.
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)

    def read(self) -> list[dict]:
        if not self.path.exists():
            return []
        return [json.loads(x) for x in self.path.read_text().splitlines() if x.strip()]
