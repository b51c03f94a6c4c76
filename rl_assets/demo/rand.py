"""Seeded randomness that does not depend on PYTHONHASHSEED or call order across modules."""

from __future__ import annotations

import hashlib
import random


def rng(seed: int, *parts: object) -> random.Random:
    """An independent stream per (seed, purpose...): adding a draw in one generator never
    shifts the numbers another generator sees."""
    key = "|".join([str(seed), *map(str, parts)]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def suffix(r: random.Random, n: int = 7) -> str:
    """Harbor-style trial suffix (`task__a1B2c3D`)."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(r.choice(alphabet) for _ in range(n))
