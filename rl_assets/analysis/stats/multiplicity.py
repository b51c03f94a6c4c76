"""Multiple-comparison corrections over a family of p-values, some of them missing (None/NaN:
a feature without enough data). Missing entries stay None and do not count towards the family.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)


def _present(pvalues: Sequence[float | None]) -> list[int]:
    return [i for i, p in enumerate(pvalues) if p is not None and not math.isnan(p)]


def holm_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values (family-wise error control); None entries are skipped.

    Why not a library: scipy has no Holm correction, and statsmodels' multipletests would be a new
    dependency (and import time) for this three-line step-down.
    """
    idx = _present(pvalues)
    order = sorted(idx, key=lambda i: pvalues[i])
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * pvalues[i]))  # monotone step-down
        out[i] = running
    return out


def bh_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (false-discovery-rate control, scipy.stats.
    false_discovery_control); None entries are skipped."""
    import numpy as np

    idx = _present(pvalues)
    out: list[float | None] = [None] * len(pvalues)
    if not idx:
        return out
    from scipy.stats import false_discovery_control

    adjusted = false_discovery_control(np.array([pvalues[i] for i in idx], float), method="bh")
    for i, p in zip(idx, adjusted):
        out[i] = float(p)
    return out
