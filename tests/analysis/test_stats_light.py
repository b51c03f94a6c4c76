"""The statistics on every Q1 run's path that skip scipy.stats' import (its cost: bench/RESULTS.md,
issue 37) give scipy.stats' numbers: Wilson interval, exact McNemar p, Pearson r."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import binomtest, pearsonr

from rl_assets.analysis import stats

SMALL = [(k, n) for n in range(1, 41) for k in range(n + 1)]
LARGE = [(0, 5000), (1, 5000), (2499, 5000), (4999, 5000), (5000, 5000), (137, 20011), (10005, 20011)]


@pytest.mark.parametrize("z", [1.0, 1.96, 2.5758293035489004])
def test_wilson_interval_equals_scipy_binomtest(z):
    from statistics import NormalDist

    level = 2 * NormalDist().cdf(z) - 1
    for k, n in SMALL + LARGE:
        ci = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        want = (max(0.0, float(ci.low)), min(1.0, float(ci.high)))
        assert stats.wilson_interval(k, n, z) == pytest.approx(want, rel=1e-12, abs=1e-15), (k, n, z)


def test_mcnemar_exact_equals_scipy_binomtest():
    pairs = [(b, c) for b in range(0, 30) for c in range(0, 30)] + [(40, 61), (480, 520), (1200, 1321), (9, 3000)]
    for b, c in pairs:
        want = 1.0 if b + c == 0 else float(binomtest(min(b, c), b + c, 0.5).pvalue)
        assert stats.mcnemar_exact(b, c) == pytest.approx(want, rel=1e-9, abs=1e-300), (b, c)


@pytest.mark.filterwarnings("ignore:An input array is nearly constant")  # scipy.stats on the 1e-8-scaled draws
def test_pearson_equals_scipy_pearsonr():
    rng = np.random.default_rng(3)
    for n in (3, 4, 10, 200, 5000):
        for _ in range(20):
            x = rng.normal(size=n) * rng.choice([1e-8, 1.0, 1e8])
            y = 0.3 * x + rng.normal(size=n) * np.std(x) + rng.choice([0.0, 1e6])
            assert stats.pearson(x, y) == pytest.approx(float(pearsonr(x, y).statistic), rel=1e-12, abs=1e-14)
    assert math.isnan(stats.pearson([1, 2, float("nan"), 4], [1, 1, 5, 1]))  # constant once the NaN pair drops


def test_the_q1_statistics_do_not_import_scipy():
    code = (
        "import sys; from rl_assets.analysis import stats; "
        "stats.wilson_interval(3, 10); stats.two_proportion_diff_ci(3, 10, 5, 10); stats.mcnemar_exact(2, 9); "
        "stats.pearson([1, 2, 3, 4], [2, 1, 4, 3]); print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
