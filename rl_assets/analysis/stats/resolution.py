"""How small a p the sign-flip test can return, and how many flips a Holm threshold needs.

A permutation p-value cannot go below its floor: 1/(N+1) for N Monte-Carlo sign flips (Q1 draws
max(n_boot, 2,000)), 2/2^n for an exact sign flip over n tasks. Holm over m cells needs the
smallest p below α/m (docs/lineage.md uses this to say "not resolvable" instead of "never
significant").
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
