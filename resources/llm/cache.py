"""Durable, crash-safe cache of LLM results: one JSON file per entry, written atomically.

Keys come from rl_assets/llm_types.cache_key (model | prompt version | content hash of the inputs),
so a new prompt version or model never reuses an old answer, while a re-run (or a run killed
half-way) reuses every answer already paid for. Only results that parsed AND validated are stored; failures go to a
separate ``failures/`` record with the reason and are retried on the next run (docs/original_pipeline.md
W10). A corrupt entry file is quarantined and
treated as a miss for that one entry, never as "the whole cache is empty".
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rl_assets.fileutil import atomic_write_text


class LLMCache:
    """`fallbacks`: roots of caches kept elsewhere before (an older layout); a miss here is looked up
    there and a hit copied here, so moving the cache never pays for an answer twice."""

    def __init__(self, root: Path | str, namespace: str = "default", fallbacks=()):
        self.dir = Path(root) / namespace
        self.fallbacks = [Path(r) / namespace for r in fallbacks if Path(r) / namespace != self.dir]
        self.corrupt = 0

    def _entry(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def _failure(self, key: str) -> Path:
        return self.dir / "failures" / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The cached value, or None on a miss."""
        path = self._entry(key)
        try:
            return json.loads(path.read_text())["value"]
        except FileNotFoundError:
            return self._adopt(key)
        except (ValueError, KeyError, OSError):
            self.corrupt += 1
            path.replace(path.with_suffix(".corrupt"))
            return None

    def _adopt(self, key: str) -> Any | None:
        for old in self.fallbacks:
            try:
                text = (old / key[:2] / f"{key}.json").read_text()
                value = json.loads(text)["value"]
            except (OSError, ValueError, KeyError):
                continue  # absent or unreadable there: a miss, the old file is left as it is
            path = self._entry(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
            return value
        return None

    def has(self, key: str) -> bool:
        return self.get(key) is not None

    def put(self, key: str, value: Any, **meta: Any) -> None:
        entry = {"key": key, "value": value, "meta": meta, "created": time.time()}
        path = self._entry(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(entry, ensure_ascii=False, sort_keys=True))
        self._failure(key).unlink(missing_ok=True)

    def record_failure(self, key: str, reason: str, **meta: Any) -> None:
        path = self._failure(key)
        prev = self.failure(key) or {}
        rec = {
            "key": key,
            "reason": reason[:500],
            "attempts": prev.get("attempts", 0) + 1,
            "last": time.time(),
            "meta": meta,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(rec, sort_keys=True))

    def failure(self, key: str) -> dict | None:
        try:
            return json.loads(self._failure(key).read_text())
        except (OSError, ValueError):
            return None

    def failures(self) -> list[dict]:
        folder = self.dir / "failures"
        return [f for p in sorted(folder.glob("*.json")) if (f := self.failure(p.stem))] if folder.exists() else []

    def __len__(self) -> int:
        return sum(1 for _ in self.dir.glob("??/*.json")) if self.dir.exists() else 0
