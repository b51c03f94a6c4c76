"""The task-clustered paired bootstrap and sign-flip test, effect sizes and minimum detectable effects.

Every analysis imports from here so that "significant" means the same thing in every report.
Methods, assumptions and the "not enough data" thresholds are documented in docs/statistics.md.
Functions that return a single float or tuple keep that shape on degenerate input (documented per
function); functions that return a result object return ``NotEnoughData`` instead.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, TypeVar

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import numpy as np

# Below this many common tasks a task-clustered bootstrap says nothing useful: with 4 tasks there
# are only 35 distinct resamples and the percentile interval is mostly ties.
MIN_COMMON_TASKS = 5
# Up to this many tasks the sign-flip test enumerates all 2**n sign patterns (exact p-value).
EXACT_SIGN_FLIP_MAX = 12
# Resolution of the Monte-Carlo sign-flip p-value is 1/(n+1); 2,000 keeps the smallest p (5e-4)
# below 0.05 even after a Holm correction over 15 features.
MIN_PERMUTATIONS = 2000

_Task = TypeVar("_Task", bound=Hashable)  # a task key: both sides' mappings use the same kind


@dataclass(frozen=True)
class NotEnoughData:
    """Returned instead of numbers when the sample cannot support the estimate."""

    reason: str
    n: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"not_enough_data": True, **asdict(self)}


@dataclass(frozen=True)
class BootstrapResult:
    estimate: float
    lo: float
    hi: float
    n_tasks: int
    se: float
    p_value: float | None = None  # paired sign-flip test when computed by paired_bootstrap_diff

    @property
    def excludes_zero(self) -> bool:
        return self.lo > 0 or self.hi < 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _z(two_sided_alpha: float) -> float:
    return NormalDist().inv_cdf(1 - two_sided_alpha / 2)


def minimum_detectable_effect(
    p: float, n: int, alpha: float = 0.05, power: float = 0.8, paired: bool = True, rho: float = 0.0
) -> float:
    """Smallest true change in a rate p that a two-sided test detects with the given power.

    Normal approximation: (z_{1-a/2} + z_power) * sqrt(2 p (1-p) (1-rho) / n). With paired=True,
    n is the number of paired tasks and rho the correlation of the two sides' outcomes
    (estimate it from the data; 0 is the conservative default). paired=False means two
    independent samples of n each (rho ignored). n <= 0 -> inf (nothing is detectable).
    """
    if n <= 0:
        return math.inf
    r = rho if paired else 0.0
    var = 2 * p * (1 - p) * max(0.0, 1 - r) / n
    return (_z(alpha) + NormalDist().inv_cdf(power)) * math.sqrt(var)


def mde_from_se(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable effect of an estimate whose standard error is se (e.g. a bootstrap SE)."""
    return (_z(alpha) + NormalDist().inv_cdf(power)) * se


def standardized_effect(before: np.ndarray, after: np.ndarray, delta: float) -> float | None:
    """delta / pooled SD of the per-trace values (Cohen's d scale); None when SD is 0 or n < 2."""
    import numpy as np

    b, a = np.asarray(before, float), np.asarray(after, float)
    b, a = b[~np.isnan(b)], a[~np.isnan(a)]
    if len(b) + len(a) < 3 or len(b) == 0 or len(a) == 0:
        return None
    ss = ((b - b.mean()) ** 2).sum() + ((a - a.mean()) ** 2).sum()
    pooled = ss / (len(b) + len(a) - 2)
    return None if pooled <= 0 else float(delta / math.sqrt(pooled))


def _task_means(values: Mapping[_Task, Iterable[float]]) -> dict[_Task, float]:
    import numpy as np

    out = {}
    for task, vals in values.items():
        arr = np.asarray([v for v in vals if v is not None], float)
        arr = arr[~np.isnan(arr)]
        if len(arr):
            out[task] = arr.mean()
    return out


def _percentile_result(est: float, boot: np.ndarray, n: int, alpha: float, p: float | None) -> BootstrapResult:
    import numpy as np

    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    return BootstrapResult(float(est), float(lo), float(hi), n, float(boot.std(ddof=1)), p)


def _exact_sign_flip(d: np.ndarray) -> float:
    """Exact two-sided sign-flip p over all 2**n sign patterns, as scipy.stats.permutation_test
    (permutation_type="samples", n_resamples=inf) computes it (tests/analysis/test_stats_known_values.py).

    Why not the library: its exact enumeration costs ~40 ms at 12 tasks, this matrix product
    ~0.5 ms, and Q1 and the lineage run it per feature per cell.
    """
    import numpy as np

    n = len(d)
    obs = abs(d.mean()) - 1e-12 * max(1.0, float(np.abs(d).max()))  # ties count as extreme
    patterns = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2 - 1
    return float(np.mean(np.abs(patterns @ d) / n >= obs))


def sign_flip_pvalue(diffs: np.ndarray, n_perm: int = MIN_PERMUTATIONS, seed: int = 0) -> float:
    """Two-sided paired randomization test of mean(diffs) == 0 by flipping per-task signs.

    Assumes only that, under no change, each task's difference is symmetric around zero.
    Exact enumeration up to EXACT_SIGN_FLIP_MAX tasks, Monte-Carlo above (with the +1
    correction that keeps a Monte-Carlo p-value valid).
    """
    import numpy as np

    d = np.asarray(diffs, float)
    d = d[~np.isnan(d)]
    if len(d) == 0:
        return 1.0
    return PairedResampler(len(d), n_perm, seed).sign_flip(d)


class PairedResampler:
    """Bootstrap weights and sign flips drawn once and shared by every feature over the same tasks.

    Why not a library: scipy.stats.bootstrap and permutation_test draw fresh resamples per call and
    drop or reject NaN; here 15 features over the same tasks share one draw (one matrix product each,
    the Q1 and lineage hot path) and a feature missing on some tasks keeps the task clustering.

    Resampling tasks with replacement is expressed as a count matrix W (n_boot x n_tasks), so a
    bootstrap mean is one matrix product per feature. A feature missing on some tasks (NaN) uses
    the ratio form sum(W*d*m)/sum(W*m): the tasks that have it, resampled jointly with the rest.
    """

    def __init__(self, n_tasks: int, n_boot: int = 2000, seed: int = 0):
        self.n, self.n_boot, self.seed = n_tasks, n_boot, seed
        self._w: np.ndarray | None = None
        self._signs: np.ndarray | None = None

    @property
    def weights(self) -> np.ndarray:
        import numpy as np

        if self._w is None:
            rng = np.random.default_rng(self.seed)
            idx = rng.integers(0, self.n, size=(self.n_boot, self.n), dtype=np.int32)
            w = np.empty((self.n_boot, self.n), dtype=np.float64)
            for i, row in enumerate(idx):  # row-wise bincount: ~3x faster than one flat bincount
                w[i] = np.bincount(row, minlength=self.n)
            self._w = w
        return self._w

    def sign_flip(self, d: np.ndarray) -> float:
        """p-value of the sign-flip test; d is aligned to the tasks, NaN/0 entries add nothing."""
        import numpy as np

        present = ~np.isnan(d)
        dz = np.where(present, d, 0.0)
        k = int(present.sum())
        if k == 0:
            return 1.0
        if k <= EXACT_SIGN_FLIP_MAX:
            return _exact_sign_flip(dz[present])
        if self._signs is None:
            rng = np.random.default_rng(self.seed + 1)
            n_perm = max(self.n_boot, MIN_PERMUTATIONS)
            self._signs = (rng.integers(0, 2, size=(n_perm, self.n), dtype=np.int8) * 2 - 1).astype(np.float64)
        obs = abs(dz.sum()) - 1e-12 * max(1.0, float(np.abs(dz).max()))
        hits = int(np.sum(np.abs(self._signs @ dz) >= obs))
        return (hits + 1) / (len(self._signs) + 1)

    def mean_ci(self, values: np.ndarray, alpha: float = 0.05) -> BootstrapResult | NotEnoughData:
        import numpy as np

        v = np.asarray(values, float)
        m = ~np.isnan(v)
        k = int(m.sum())
        if k < MIN_COMMON_TASKS:
            return NotEnoughData(f"{k} tasks with values (need >= {MIN_COMMON_TASKS})", k)
        w = self.weights
        vz = np.where(m, v, 0.0)
        if k == self.n:  # every task present: each resample has exactly n tasks
            boot = (w @ vz) / self.n
        else:  # one pass over W for numerator and denominator (the product is memory-bound)
            num, den = (w @ np.column_stack([vz, m.astype(float)])).T
            boot = num / np.where(den > 0, den, np.nan)
        boot = boot[~np.isnan(boot)]  # a resample with none of the k tasks has no mean
        return _percentile_result(vz.sum() / k, boot, k, alpha, None)

    def diff(self, before: np.ndarray, after: np.ndarray, alpha: float = 0.05) -> BootstrapResult | NotEnoughData:
        """mean(after - before) over tasks present on both sides, with CI, SE and sign-flip p."""
        import numpy as np

        d = np.asarray(after, float) - np.asarray(before, float)
        res = self.mean_ci(d, alpha)
        if isinstance(res, NotEnoughData):
            return NotEnoughData(f"{res.n} common tasks with values on both sides (need >= {MIN_COMMON_TASKS})", res.n)
        return BootstrapResult(res.estimate, res.lo, res.hi, res.n_tasks, res.se, self.sign_flip(d))


def paired_bootstrap_arrays(
    before_means: np.ndarray,
    after_means: np.ndarray,
    n_boot: int = 2000,
    seed: int = 0,
    stat: str = "mean",
    alpha: float = 0.05,
) -> BootstrapResult | NotEnoughData:
    """Array form of paired_bootstrap_diff: element i of both arrays is the same task."""
    import numpy as np

    b, a = np.asarray(before_means, float), np.asarray(after_means, float)
    keep = ~(np.isnan(a) | np.isnan(b))
    b, a = b[keep], a[keep]
    n = len(b)
    if stat == "mean":
        return PairedResampler(n, n_boot, seed).diff(b, a, alpha)
    if stat != "median":
        raise ValueError(f"stat must be 'mean' or 'median', got {stat!r}")
    if n < MIN_COMMON_TASKS:
        return NotEnoughData(f"{n} common tasks with values on both sides (need >= {MIN_COMMON_TASKS})", n)
    from scipy.stats import bootstrap

    res = bootstrap(
        (b, a),
        lambda b, a, axis: np.median(a, axis=axis) - np.median(b, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=n_boot,
        confidence_level=1 - alpha,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return BootstrapResult(
        float(np.median(a) - np.median(b)),
        float(res.confidence_interval.low),
        float(res.confidence_interval.high),
        n,
        float(res.standard_error),
        sign_flip_pvalue(a - b, n_boot, seed),
    )


def paired_bootstrap_diff(
    before: Mapping[_Task, Sequence[float]],
    after: Mapping[_Task, Sequence[float]],
    n_boot: int = 2000,
    seed: int = 0,
    stat: str = "mean",
    alpha: float = 0.05,
) -> BootstrapResult | NotEnoughData:
    """after - before over COMMON tasks, task-clustered.

    Each task is reduced to the mean of its attempts per side; tasks (not attempts) are resampled
    with replacement, keeping each task's before/after pair together, because attempts of one
    task are correlated and treating them as independent would make intervals too narrow.
    The estimate is stat(after task means) - stat(before task means); p_value is the paired
    sign-flip test on the per-task differences.
    """
    import numpy as np

    bm, am = _task_means(before), _task_means(after)
    common = sorted(set(bm) & set(am), key=str)
    return paired_bootstrap_arrays(
        np.array([bm[t] for t in common]), np.array([am[t] for t in common]), n_boot, seed, stat, alpha
    )


def bootstrap_mean_ci(
    values_by_cluster: Mapping[Hashable, Sequence[float]], n_boot: int = 2000, seed: int = 0, alpha: float = 0.05
) -> BootstrapResult | NotEnoughData:
    """Mean of per-cluster means with a cluster-bootstrap percentile interval (one side only)."""
    import numpy as np

    means = np.array(list(_task_means(values_by_cluster).values()), float)
    return PairedResampler(len(means), n_boot, seed).mean_ci(means, alpha)
