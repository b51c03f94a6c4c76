"""Proportions: the standard error and Wilson interval of a rate, Newcombe's interval of the
difference of two rates, and the exact McNemar test of paired pass/fail outcomes.

scipy.stats does the arithmetic (binomtest and its Wilson interval); this module keeps the shapes
every report relies on: n == 0 returns "no information" instead of raising, and intervals take the
critical value z the reports quote. scipy is imported inside the functions so that loading the
Dagster definitions does not pay for it.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def binomial_se(k: int, n: int) -> float:
    """sqrt(p(1-p)/n) of a proportion k/n; NaN when n == 0 (no observations)."""
    if n <= 0:
        return math.nan
    p = k / n
    return math.sqrt(p * (1 - p) / n)


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (scipy.stats.binomtest(...).proportion_ci).

    Unlike the Wald interval it stays inside [0, 1] and is not degenerate at k = 0 or k = n.
    n == 0 returns (0.0, 1.0): no information, the whole range.
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= k <= n:
        raise ValueError(f"wilson_interval: need 0 <= k <= n, got k={k}, n={n}")
    from scipy.stats import binomtest

    level = 2 * NormalDist().cdf(z) - 1  # scipy takes a confidence level; z = 1.96 stays 1.96
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return (max(0.0, float(ci.low)), min(1.0, float(ci.high)))


def two_proportion_diff_ci(k1: int, n1: int, k2: int, n2: int, z: float = 1.96) -> tuple[float, float, float]:
    """(p2 - p1, lo, hi) for two independent proportions, Newcombe's hybrid score interval.

    Why not a library: scipy has no Newcombe interval, and statsmodels (which has one) would be a
    dependency for two lines that combine the scipy Wilson intervals above. It behaves at 0 % and
    100 % where Wald fails. Either n == 0 returns (nan, -1.0, 1.0).
    """
    if n1 <= 0 or n2 <= 0:
        return (math.nan, -1.0, 1.0)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, z)
    l2, u2 = wilson_interval(k2, n2, z)
    d = p2 - p1
    lo = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    hi = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return (d, lo, hi)


def binomial_greater(k: int, n: int, p0: float) -> float:
    """One-sided exact binomial p of seeing >= k successes in n trials at rate p0 (scipy.stats.binomtest,
    alternative "greater"). p0 == 0 with k > 0 is impossible under the null: 0.0; n == 0: 1.0 (no evidence)."""
    if n <= 0 or k <= 0:
        return 1.0
    if not 0 <= k <= n or not 0.0 <= p0 <= 1.0:
        raise ValueError(f"binomial_greater: need 0 <= k <= n and 0 <= p0 <= 1, got k={k}, n={n}, p0={p0}")
    if p0 <= 0.0:
        return 0.0
    from scipy.stats import binomtest

    return float(binomtest(k, n, p0, alternative="greater").pvalue)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p: scipy.stats.binomtest of b vs c discordant pairs at p = 1/2.

    b = pass->fail, c = fail->pass (the test is symmetric). No discordant pairs -> 1.0.
    binomtest is exact for any n (no normal approximation).
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_exact: counts must be >= 0, got b={b}, c={c}")
    if b + c == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(b, c), b + c, 0.5).pvalue)
