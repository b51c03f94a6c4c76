"""Student t critical values (the Q2 reward interval for non-binary rewards), from scipy.stats.t."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=256)
def t_quantile_975(df: int) -> float:
    """0.975 quantile of Student's t with ``df`` degrees of freedom (scipy.stats.t.ppf).

    >>> round(t_quantile_975(10), 4)
    2.2281
    """
    if df < 1:
        raise ValueError(f"t_quantile_975: df must be >= 1, got {df}")
    from scipy.stats import t

    return float(t.ppf(0.975, df))
