"""The shared bootstrap must stay fast: 2,000 resamples x 2,000 tasks x 15 features."""

import time

import numpy as np

from rl_assets.analysis import stats


def test_fifteen_features_on_2000_tasks_under_a_second_each():
    rng = np.random.default_rng(0)
    sampler = stats.PairedResampler(2000, n_boot=2000, seed=0)
    start = time.perf_counter()
    for f in range(15):
        b = rng.normal(size=2000)
        b[rng.random(2000) < 0.1] = np.nan  # features missing on some tasks take the ratio path
        res = sampler.diff(b, b + 0.1 * f + rng.normal(0, 0.5, size=2000))
        assert res.n_tasks < 2000 and res.p_value is not None
    elapsed = time.perf_counter() - start
    assert elapsed < 15 * 1.0, elapsed
    assert elapsed < 3.0, f"15 features took {elapsed:.2f}s (expected well under 1 s each)"
