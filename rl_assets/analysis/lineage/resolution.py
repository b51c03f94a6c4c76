"""Can a lineage cell's test resolve significance after the lineage-wide Holm correction?

A permutation p-value cannot go below its floor: 1/(N+1) for N Monte-Carlo sign flips (Q1 draws
max(n_boot, 2,000)), 2/2^n for an exact sign flip over n tasks. Holm over m cells needs the
smallest p below α/m, so a run with many checkpoints (m = features × checkpoints) can make every
cell unreachable: 15 features × 7 checkpoints × 1/2001 > 0.05. Such a cell — its CI excludes 0 but
its p sits at the floor — is marked `resolution_limited`, and the lineage says "not resolvable"
with the n_boot that would resolve it, instead of "never significant" (docs/lineage.md).
"""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.stats.resolution import p_floor, permutations_for


def mark_limited(cells: list[dict[str, Any]], n_boot: int | None) -> None:
    """`resolution_limited` on cells whose CI excludes 0, not significant, p at its floor."""
    for c in cells:
        p, lo, hi = c.get("p"), c.get("lo"), c.get("hi")
        excludes = lo is not None and hi is not None and (lo > 0 or hi < 0)
        at_floor = p is not None and p <= p_floor(c.get("n_tasks"), c.get("n_boot") or n_boot) * (1 + 1e-9)
        c["resolution_limited"] = bool(excludes and at_floor and not c.get("significant"))


def resolution_note(cells: list[dict[str, Any]], what: str, alpha: float) -> dict[str, Any] | None:
    """What to re-run, when some cells could not be resolved (None when every cell could)."""
    limited = [c for c in cells if c.get("resolution_limited")]
    if not limited:
        return None
    m = sum(c.get("p") is not None for c in cells)
    return {
        "what": what,
        "cells": m,
        "limited": len(limited),
        "holm_threshold": alpha / m,
        "n_boot_needed": permutations_for(m, alpha),
    }
