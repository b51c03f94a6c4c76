"""Can a lineage cell's test resolve significance after the lineage-wide Holm correction?

A permutation p-value cannot go below its floor: 1/(N+1) for N Monte-Carlo sign flips (Q1 draws
max(n_boot, 2,000)), 2/2^n for an exact sign flip over n tasks. Holm over m cells needs the
smallest p below α/m, so a run with many checkpoints (m = features × checkpoints) can make every
cell unreachable: 15 features × 7 checkpoints × 1/2001 > 0.05. Such a cell — its CI excludes 0 but
its p sits at the floor — is marked `resolution_limited`, and the lineage says "not resolvable"
with the n_boot that would resolve it, instead of "never significant" (docs/lineage.md).
"""

from __future__ import annotations

import math

from rl_assets.analysis.stats.core import EXACT_SIGN_FLIP_MAX, MIN_PERMUTATIONS


def p_floor(n_tasks: int | None, n_boot: int | None) -> float:
    """The smallest p the sign-flip test can return for a cell of `n_tasks` tasks."""
    if n_tasks is not None and 0 < n_tasks <= EXACT_SIGN_FLIP_MAX:
        return 2.0 ** (1 - n_tasks)
    return 1.0 / (max(n_boot or 0, MIN_PERMUTATIONS) + 1)


def permutations_for(m: int, alpha: float) -> int:
    """Sign flips whose floor 1/(N+1) sits at half of α/m, the smallest Holm threshold over m cells."""
    return max(MIN_PERMUTATIONS, math.ceil(2 * m / alpha))


def mark_limited(cells: list[dict], n_boot: int | None) -> None:
    """`resolution_limited` on cells whose CI excludes 0, not significant, p at its floor."""
    for c in cells:
        p, lo, hi = c.get("p"), c.get("lo"), c.get("hi")
        excludes = lo is not None and hi is not None and (lo > 0 or hi < 0)
        at_floor = p is not None and p <= p_floor(c.get("n_tasks"), c.get("n_boot") or n_boot) * (1 + 1e-9)
        c["resolution_limited"] = bool(excludes and at_floor and not c.get("significant"))


def resolution_note(cells: list[dict], what: str, alpha: float) -> dict | None:
    """What to re-run, when some cells could not be resolved (None when every cell could)."""
    limited = [c for c in cells if c.get("resolution_limited")]
    if not limited:
        return None
    m = sum(c.get("p") is not None for c in cells)
    return {"what": what, "cells": m, "limited": len(limited), "holm_threshold": alpha / m,
            "n_boot_needed": permutations_for(m, alpha)}
