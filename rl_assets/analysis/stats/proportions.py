"""Proportions: the standard error and Wilson interval of a rate, Newcombe's interval of the
difference of two rates, and the exact McNemar test of paired pass/fail outcomes.

scipy.stats does the one-sided exact binomial test (binomtest); this module keeps the shapes every
report relies on: n == 0 returns "no information" instead of raising, and intervals take the critical
value z the reports quote. scipy is imported inside the function that uses it, so that loading the
Dagster definitions does not pay for it. The Wilson interval and McNemar's test are on every Q1 run's
path and are written out instead: scipy.stats' import costs ~0.7 s of CPU and ~45-60 MB per run
process (bench/RESULTS.md, issue 37), more than the rest of a small Q1 run;
tests/analysis/test_stats_light.py holds both equal to scipy.stats.binomtest.
"""

from __future__ import annotations

import math


def binomial_se(k: int, n: int) -> float:
    """sqrt(p(1-p)/n) of a proportion k/n; NaN when n == 0 (no observations)."""
    if n <= 0:
        return math.nan
    p = k / n
    return math.sqrt(p * (1 - p) / n)


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials: the arithmetic of
    scipy.stats.binomtest(k, n).proportion_ci(method="wilson") (Newcombe 1998), written out.

    Why by hand: three lines that take z directly, where scipy.stats costs every run process its
    import (module docstring); the test holds both equal.
    Unlike the Wald interval it stays inside [0, 1] and is not degenerate at k = 0 or k = n.
    n == 0 returns (0.0, 1.0): no information, the whole range.
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= k <= n:
        raise ValueError(f"wilson_interval: need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    lo = 0.0 if k == 0 else center - delta  # scipy's own ends at k == 0 and k == n
    hi = 1.0 if k == n else center + delta
    return (max(0.0, lo), min(1.0, hi))


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
    """Two-sided exact McNemar p: the p of scipy.stats.binomtest of b vs c discordant pairs at p = 1/2.

    b = pass->fail, c = fail->pass (the test is symmetric). No discordant pairs -> 1.0.
    Exact for any n (no normal approximation). At p = 1/2 the binomial is symmetric, so binomtest's
    two-sided p (outcomes no likelier than the observed one) is twice the lower tail, capped at 1.
    Why by hand: the tail is a sum of binomial coefficients over 2**n, exact in integers (scipy.stats'
    import is avoided, module docstring; scipy.special's pulls in numpy's f2py and testing modules).
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_exact: counts must be >= 0, got b={b}, c={c}")
    if b + c == 0 or b == c:
        return 1.0
    n, k = b + c, min(b, c)
    term = tail = 1  # C(n, 0), then C(n, i) for i = 1..k, summed
    for i in range(k):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(1.0, 2 * tail / (1 << n))  # int / int: the correctly rounded float of the exact ratio
