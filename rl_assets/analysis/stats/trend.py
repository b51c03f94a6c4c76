"""A trend test: does a per-rollout value move with the training step? (Spearman, permutation p.)

Used by the run lineage to say in which training-step window a rollout behaviour moved
(docs/lineage.md); its p-values go through the same Holm correction as every other test.
"""

from __future__ import annotations

import numpy as np

from rl_assets.analysis.stats.core import MIN_PERMUTATIONS
from rl_assets.analysis.stats.correlation import _ranks, pearson_rows

_CELLS = 2_000_000  # floats per permutation batch (16 MB), whatever the number of pairs


def spearman_permutation_p(x, y, n_perm: int = MIN_PERMUTATIONS, seed: int = 0) -> tuple[float, float]:
    """(rho, two-sided p) of Spearman's rank correlation by permuting y against x.

    Assumes only exchangeability under no trend. p = (hits + 1) / (n_perm + 1), so it is never 0;
    fewer than 3 pairs or a constant side -> (nan, 1.0): no evidence of a trend.

    >>> rho, p = spearman_permutation_p(range(30), range(30))
    >>> round(rho, 3), p < 0.01
    (1.0, True)
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), 1.0
    rx, ry = _ranks(x), _ranks(y)
    obs = float(pearson_rows(rx, ry))
    rng = np.random.default_rng(seed)
    hits, done, chunk = 0, 0, max(1, min(250, _CELLS // len(x)))
    while done < n_perm:
        k = min(chunk, n_perm - done)
        perm = rng.permuted(np.tile(ry, (k, 1)), axis=1)
        hits += int(np.sum(np.abs(pearson_rows(rx[None, :], perm)) >= abs(obs) - 1e-12))
        done += k
    return obs, (hits + 1) / (n_perm + 1)
