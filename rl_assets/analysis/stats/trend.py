"""A trend test: does a per-rollout value move with the training step? (Spearman, permutation p.)

Used by the run lineage to say in which training-step window a rollout behaviour moved
(docs/lineage.md); its p-values go through the same Holm correction as every other test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

from rl_assets.analysis.stats.core import MIN_PERMUTATIONS
from rl_assets.analysis.stats.correlation import _finite_pairs, _undefined, pearson_rows

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)

_CELLS = 2_000_000  # floats per permutation batch (16 MB), whatever the number of pairs


def spearman_permutation_p(
    x: ArrayLike, y: ArrayLike, n_perm: int = MIN_PERMUTATIONS, seed: int = 0
) -> tuple[float, float]:
    """(rho, two-sided p) of Spearman's rank correlation by permuting y against x
    (scipy.stats.permutation_test, permutation_type="pairings").

    Assumes only exchangeability under no trend. Monte-Carlo p = (hits + 1) / (n_perm + 1), so it
    is never 0; when (n!)^2 <= n_perm (3 or 4 pairs at the default) scipy enumerates every
    re-pairing instead (exact p). Fewer than 3 pairs or a constant side -> (nan, 1.0): no evidence
    of a trend.

    >>> rho, p = spearman_permutation_p(range(30), range(30))
    >>> round(rho, 3), p < 0.01
    (1.0, True)
    """
    import numpy as np

    x, y = _finite_pairs(x, y)
    if _undefined(x, y):
        return float("nan"), 1.0
    from scipy.stats import permutation_test, rankdata

    # Ranks are computed once: re-pairing y with x moves each rank with its value.
    rx, ry = rankdata(x), rankdata(y)
    res = permutation_test(
        (rx, ry),
        lambda a, b, axis: np.abs(pearson_rows(a, b)),
        permutation_type="pairings",
        vectorized=True,
        n_resamples=n_perm,
        batch=max(1, min(250, _CELLS // len(x))),
        alternative="greater",
        rng=np.random.default_rng(seed),
    )
    return float(pearson_rows(rx, ry)), float(res.pvalue)
