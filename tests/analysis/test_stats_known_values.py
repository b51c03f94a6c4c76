"""rl_assets.analysis.stats against textbook values and independent computations."""

import math

import numpy as np
import pytest

from rl_assets.analysis import stats


def _binom_pmf(k, n):
    return math.comb(n, k) * 0.5**n  # exact for these n (binary fractions)


def _exact_binomial_two_sided_minlike(k_obs, n):
    """Brute-force two-sided exact binomial test at p = 1/2, "minlike" definition (as R's binom.test):
    enumerate every outcome k = 0..n and sum P(k) over those with P(k) <= P(k_obs). A small relative
    tolerance absorbs float ties, as R does. Shares nothing with the tail formula in the code; for the
    symmetric p = 1/2 binomial it equals the doubled smaller tail capped at 1."""
    p_obs = _binom_pmf(k_obs, n)
    return min(1.0, sum(_binom_pmf(k, n) for k in range(n + 1) if _binom_pmf(k, n) <= p_obs * (1 + 1e-7)))


@pytest.mark.parametrize("b,c", [(1, 9), (9, 1), (0, 5), (3, 3), (10, 25), (0, 1), (120, 160), (7, 2), (4, 5)])
def test_mcnemar_exact_matches_brute_force_binomial_test(b, c):
    assert stats.mcnemar_exact(b, c) == pytest.approx(_exact_binomial_two_sided_minlike(b, b + c), rel=1e-9)


@pytest.mark.parametrize(
    "b,c,p",
    [
        (1, 9, 0.021484375),  # 2 * (1 + 10) / 1024; R: binom.test(1, 10)$p.value
        (0, 5, 0.0625),  # 2 / 32
        (3, 3, 1.0),
        (2, 8, 0.109375),  # 2 * (1 + 10 + 45) / 1024
        (0, 10, 0.001953125),  # 2 / 1024
    ],
)
def test_mcnemar_exact_published_values(b, c, p):
    assert stats.mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)
    assert _exact_binomial_two_sided_minlike(b, b + c) == pytest.approx(p, rel=1e-12)  # the reference itself


def test_mcnemar_textbook_and_edges():
    assert stats.mcnemar_exact(1, 9) == 0.021484375  # 2 * (1 + 10) / 1024
    assert stats.mcnemar_exact(0, 0) == 1.0  # no discordant pairs: no evidence
    assert stats.mcnemar_exact(5, 5) == 1.0
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def test_wilson_textbook_values():
    assert stats.wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert stats.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert stats.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)  # all pass
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)  # n = 0: no information
    with pytest.raises(ValueError):
        stats.wilson_interval(11, 10)


def test_binomial_se():
    assert stats.binomial_se(25, 100) == pytest.approx(math.sqrt(0.25 * 0.75 / 100))
    assert stats.binomial_se(10, 10) == 0.0
    assert math.isnan(stats.binomial_se(0, 0))


def test_newcombe_difference_interval_textbook():
    # Newcombe (1998), Statistics in Medicine 17:873, example (56/70 vs 48/80): 0.0524 to 0.3339.
    d, lo, hi = stats.two_proportion_diff_ci(48, 80, 56, 70)
    assert d == pytest.approx(0.2)
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert math.isnan(stats.two_proportion_diff_ci(0, 0, 1, 2)[0])


def test_holm_and_bh_known_values():
    p = [0.01, 0.04, 0.03, 0.005, None]
    assert stats.holm_adjust(p) == pytest.approx([0.03, 0.06, 0.06, 0.02, None])
    assert stats.bh_adjust(p) == pytest.approx([0.02, 0.04, 0.04, 0.02, None])
    assert stats.holm_adjust([]) == []


def test_minimum_detectable_effect():
    # (z_.975 + z_.8) * sqrt(2 * .25 / 100) = 2.8016 * 0.0707
    assert stats.minimum_detectable_effect(0.5, 100, paired=False) == pytest.approx(0.19810, abs=1e-4)
    assert stats.minimum_detectable_effect(0.5, 100, rho=0.5) == pytest.approx(0.19810 / math.sqrt(2), abs=1e-4)
    assert stats.minimum_detectable_effect(0.5, 0) == math.inf


def test_sign_flip_exact_small_sample():
    assert stats.sign_flip_pvalue(np.array([1.0, 2, 3, 4, 5])) == pytest.approx(2 / 32)
    assert stats.sign_flip_pvalue(np.array([1.0, -1, 2, -2, 0.5, -0.5])) == 1.0
    assert stats.sign_flip_pvalue(np.array([])) == 1.0


def test_paired_bootstrap_is_task_clustered_and_needs_five_tasks():
    before = {f"t{i}": [float(i)] for i in range(20)}
    after = {f"t{i}": [float(i) + (1.0 if i % 2 else -0.2)] for i in range(20)}
    one = stats.paired_bootstrap_diff(before, after, n_boot=500, seed=3)
    # Ten identical attempts per task carry no more information than one: same interval.
    ten = stats.paired_bootstrap_diff(
        {k: v * 10 for k, v in before.items()}, {k: v * 10 for k, v in after.items()}, n_boot=500, seed=3
    )
    assert one.estimate == pytest.approx(0.4) and one.n_tasks == 20
    assert (ten.lo, ten.hi) == pytest.approx((one.lo, one.hi))
    short = stats.paired_bootstrap_diff(
        {"a": [1], "b": [2], "c": [3], "d": [4]}, {"a": [1], "b": [2], "c": [3], "d": [5]}
    )
    assert isinstance(short, stats.NotEnoughData) and "4 common tasks" in short.reason
    # tasks present on one side only are ignored
    res = stats.paired_bootstrap_diff({**before, "x": [100.0]}, {**after, "y": [-100.0]}, n_boot=500, seed=3)
    assert res.estimate == pytest.approx(0.4)


def test_paired_bootstrap_coverage_is_close_to_nominal():
    """95% intervals should cover the true shift ~95% of the time (an honest test: it can fail)."""
    rng = np.random.default_rng(11)
    hits = 0
    for rep in range(200):
        task_level = rng.normal(0, 2, size=40)
        b = task_level + rng.normal(0, 1, size=40)
        a = task_level + 0.3 + rng.normal(0, 1, size=40)
        res = stats.paired_bootstrap_arrays(b, a, n_boot=1000, seed=rep)
        hits += res.lo <= 0.3 <= res.hi
    assert 0.88 <= hits / 200 <= 0.99


def test_bootstrap_mean_ci_and_median():
    res = stats.bootstrap_mean_ci({i: [i, i + 2] for i in range(10)}, n_boot=500)
    assert res.estimate == pytest.approx(5.5) and res.lo < 5.5 < res.hi
    med = stats.paired_bootstrap_arrays(np.arange(10.0), np.arange(10.0) + 2, n_boot=300, stat="median")
    assert med.estimate == pytest.approx(2.0)
    with pytest.raises(ValueError):
        stats.paired_bootstrap_arrays(np.arange(10.0), np.arange(10.0), stat="mode")


def test_standardized_effect():
    b, a = np.array([0.0, 2.0, 0.0, 2.0]), np.array([1.0, 3.0, 1.0, 3.0])
    assert stats.standardized_effect(b, a, 1.0) == pytest.approx(1 / math.sqrt(4 / 3))
    assert stats.standardized_effect(np.ones(4), np.ones(4), 0.0) is None


@pytest.mark.parametrize(
    "df,t", [(1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (9, 2.2622), (29, 2.0452), (120, 1.9799)]
)
def test_t_quantile_975_matches_the_textbook_table(df, t):
    assert stats.t_quantile_975(df) == pytest.approx(t, abs=1e-4)


def test_t_quantile_975_rejects_zero_degrees_of_freedom():
    with pytest.raises(ValueError, match="df must be >= 1"):
        stats.t_quantile_975(0)


def test_fisher_z_interval_known_values():
    # r = 0.5, n = 28: z = atanh(0.5) = 0.549306, se = 1/5; tanh(0.549306 -+ 0.392)
    assert stats.fisher_z_interval(0.5, 28) == pytest.approx((0.156021, 0.735822), abs=1e-6)
    # r = 0 is symmetric: +-tanh(1.96 / sqrt(100)) = +-0.193528
    lo, hi = stats.fisher_z_interval(0.0, 103)
    assert (lo, hi) == pytest.approx((-0.193528, 0.193528), abs=1e-6)
    # a perfect correlation still gets a finite interval below 1
    lo, hi = stats.fisher_z_interval(1.0, 12)
    assert 0.99 < lo < hi < 1.0


def test_t_interval_95_known_value_and_small_samples():
    # [1..5]: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.7764 (table) -> half-width 1.9632
    lo, hi = stats.t_interval_95([1, 2, 3, 4, 5, float("nan")])  # the NaN is ignored
    assert (lo, hi) == pytest.approx((3 - 1.9632, 3 + 1.9632), abs=1e-4)
    assert all(math.isnan(v) for v in stats.t_interval_95([7.0]))


def test_pearson_known_value_and_undefined_cases():
    # x = 1..4, y = 1,3,2,4: cov sum 4, sum of squares 5 and 5 -> r = 0.8
    assert stats.pearson([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert math.isnan(stats.pearson([1, 2], [2, 1])) and math.isnan(stats.pearson([1, 2, 3], [5, 5, 5]))


def test_sign_flip_p_floor_and_holm_flips():
    assert stats.p_floor(3, None) == 0.25  # exact over 3 tasks: 2 of 8 patterns are as extreme
    assert stats.p_floor(100, 4999) == pytest.approx(1 / 5000)
    assert stats.permutations_for(105, 0.05) == 4200  # 2 * 105 / 0.05


# --- the same quantities computed by scipy.stats directly (the library the code delegates to, or
# the reference for what it keeps: the vectorised exact sign flip, Newcombe, Holm, Fisher z) ---


def test_sign_flip_exact_equals_scipy_permutation_test():
    from scipy.stats import permutation_test

    rng = np.random.default_rng(5)
    for n in (3, 7, 12):
        d = rng.normal(0.4, 1, size=n)
        ref = permutation_test(
            (d,),
            lambda x, axis: np.abs(np.mean(x, axis=axis)),
            permutation_type="samples",
            vectorized=True,
            n_resamples=np.inf,
            alternative="greater",
        ).pvalue
        assert stats.sign_flip_pvalue(d) == pytest.approx(ref, rel=1e-12)


def test_monte_carlo_sign_flip_agrees_with_scipy_within_its_resolution():
    from scipy.stats import permutation_test

    d = np.random.default_rng(8).normal(0.15, 1, size=60)
    ref = permutation_test(
        (d,),
        lambda x, axis: np.abs(np.mean(x, axis=axis)),
        permutation_type="samples",
        vectorized=True,
        n_resamples=20000,
        alternative="greater",
        rng=1,
    ).pvalue
    # two Monte-Carlo estimates of the same p: binomial SE of 2,000 draws is ~0.011 at p ~ 0.25
    assert stats.sign_flip_pvalue(d) == pytest.approx(ref, abs=0.04)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (17, 40), (40, 40), (1, 1)])
def test_wilson_equals_scipy_binomtest_interval(k, n):
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    # the code keeps z = 1.96 (what the reports quote); scipy's 95 % uses z = 1.959964
    assert stats.wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-5)


def test_mcnemar_and_bh_equal_scipy():
    from scipy.stats import binomtest, false_discovery_control

    assert stats.mcnemar_exact(13, 31) == pytest.approx(binomtest(31, 44, 0.5).pvalue, rel=1e-12)
    p = [0.001, 0.2, 0.03, 0.04, 0.5, 0.012]
    assert stats.bh_adjust(p) == pytest.approx(list(false_discovery_control(p, method="bh")), rel=1e-12)


def test_holm_against_its_definition():
    # Holm (1979): sorted p_(i) -> max_{j <= i} min(1, (m - j + 1) p_(j)); scipy has no Holm.
    p = np.array([0.02, 0.001, 0.04, 0.3, 0.011])
    order = np.argsort(p)
    steps = np.minimum(1, (len(p) - np.arange(len(p))) * p[order])
    expected = np.empty(len(p))
    expected[order] = np.maximum.accumulate(steps)
    assert stats.holm_adjust(list(p)) == pytest.approx(list(expected))


def test_correlations_equal_scipy():
    from scipy.stats import kendalltau, pearsonr, spearmanr

    rng = np.random.default_rng(3)
    x = rng.integers(0, 8, size=50).astype(float)  # ties on purpose: tau-b and average ranks
    y = x + rng.normal(0, 3, size=50)
    y[4] = np.nan  # the pair is dropped
    ok = ~np.isnan(y)
    assert stats.pearson(x, y) == pytest.approx(pearsonr(x[ok], y[ok]).statistic, rel=1e-12)
    assert stats.spearman(x, y) == pytest.approx(spearmanr(x[ok], y[ok]).statistic, rel=1e-12)
    assert stats.kendall_tau_b(x, y) == pytest.approx(kendalltau(x[ok], y[ok]).statistic, rel=1e-12)
    assert math.isnan(stats.spearman([1, 2, 3], [4, 4, 4]))  # constant side: undefined, no warning


def test_fisher_z_equals_scipy_pearsonr_interval():
    from scipy.stats import pearsonr

    rng = np.random.default_rng(4)
    x = rng.normal(size=40)
    y = 0.5 * x + rng.normal(size=40)
    res = pearsonr(x, y)
    ci = res.confidence_interval(0.95)
    # scipy uses z = 1.959964; the code's z = 1.96 widens each end by well under 1e-4
    assert stats.fisher_z_interval(res.statistic, 40) == pytest.approx((ci.low, ci.high), abs=1e-4)


def test_t_interval_equals_scipy_t_interval():
    from scipy.stats import sem, t

    x = np.array([2.1, 3.4, 1.9, 5.0, 4.2, 3.3])
    assert stats.t_interval_95(x) == pytest.approx(t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sem(x)), rel=1e-12)
    assert stats.t_interval_95([2.0, 2.0, 2.0]) == (2.0, 2.0)  # constant: zero width (scipy gives NaN)


def test_spearman_permutation_p_against_enumerated_pairings():
    from itertools import permutations

    from rl_assets.analysis.stats.trend import spearman_permutation_p

    def enumerated(x, y):
        rho = stats.spearman(x, y)
        rhos = [stats.spearman(x, list(q)) for q in permutations(y)]
        return sum(abs(r) >= abs(rho) - 1e-12 for r in rhos) / len(rhos)

    # 4 pairs: (4!)^2 = 576 <= 2,000 re-pairings, so scipy enumerates them all: the exact p
    assert spearman_permutation_p([1, 2, 3, 4], [2, 1, 3, 4]) == pytest.approx(
        (0.8, enumerated([1, 2, 3, 4], [2, 1, 3, 4]))
    )
    # 6 pairs: Monte-Carlo, within its resolution of the exact p
    x, y = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5]
    rho, p = spearman_permutation_p(x, y)
    assert rho == pytest.approx(stats.spearman(x, y)) and p == pytest.approx(enumerated(x, y), abs=0.03)


def test_bootstrap_spearman_drops_constant_resamples_quietly():
    import warnings

    x, y = np.array([0, 0, 0, 0, 0, 0, 1.0]), np.array([1, 2, 3, 4, 5, 6, 7.0])  # many resamples: x constant
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = stats.bootstrap_spearman(x, y, n_boot=400)
    assert 0 < lo <= hi <= 1


def test_linear_dependence_known_values():
    from rl_assets.analysis.stats.correlation import linear_dependence

    # y = 2x + 1 exactly (one pair has a missing side and is dropped): slope 2, rho = r = 1
    dep = linear_dependence([0, 1, 2, 3, float("nan")], [1, 3, 5, 7, 9])
    assert dep["slope"] == pytest.approx(2.0) and dep["rho"] == pytest.approx(1.0) and dep["r"] == pytest.approx(1.0)
    # scipy's p for Pearson r of (1, 2, 3, 4) vs (1, 3, 2, 4): r = 0.8, t = 0.8 * sqrt(2) / 0.6, df 2 -> p 0.2
    assert linear_dependence([1, 2, 3, 4], [1, 3, 2, 4])["p_r"] == pytest.approx(0.2, abs=1e-9)
    flat = linear_dependence([5, 5, 5, 5], [1, 2, 3, 4])  # a constant explains nothing
    assert flat["slope"] == 0.0 and flat["p_rho"] == 1.0 and math.isnan(flat["rho"])
