"""Multiple-comparison corrections over a family of p-values, some of them missing (None/NaN:
a feature without enough data). Missing entries stay None and do not count towards the family.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)


def _present(pvalues: Sequence[float | None]) -> dict[int, float]:
    """{index: p} of the entries that are there (in index order)."""
    return {i: p for i, p in enumerate(pvalues) if p is not None and not math.isnan(p)}


def holm_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values (family-wise error control); None entries are skipped.

    Why not a library: scipy has no Holm correction, and statsmodels' multipletests would be a new
    dependency (and import time) for this three-line step-down.
    """
    present = _present(pvalues)
    order = sorted(present, key=present.__getitem__)
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * present[i]))  # monotone step-down
        out[i] = running
    return out


def bh_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (false-discovery-rate control, scipy.stats.
    false_discovery_control); None entries are skipped."""
    import numpy as np

    present = _present(pvalues)
    out: list[float | None] = [None] * len(pvalues)
    if not present:
        return out
    from scipy.stats import false_discovery_control

    adjusted = false_discovery_control(np.array(list(present.values()), float), method="bh")
    for i, p in zip(present, adjusted):
        out[i] = float(p)
    return out
