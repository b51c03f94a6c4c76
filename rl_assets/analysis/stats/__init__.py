"""All statistics rldelta reports, importable as one module: `from rl_assets.analysis import stats`.

scipy.stats computes them wherever it has the method; what remains here is what no library does
(each such function says why). scipy is imported inside the functions that use it, so importing
this package (and the Dagster definitions) stays cheap.

core.py: the task-clustered paired bootstrap and sign-flip test, effect sizes (docs/statistics.md).
proportions.py: Wilson and Newcombe intervals, exact McNemar; multiplicity.py: Holm and BH.
correlation.py: Pearson/Spearman/Kendall, the bootstrap interval of rho and the Fisher-z interval of r.
student_t.py: Student t critical values; intervals.py: the t interval of a mean (the Q2 reward interval)
and the re-run noise floor of a solve rate (model comparison); resolution.py: the smallest p the
sign-flip test can return and the flips a Holm threshold needs (run lineage); trend.py: the
permutation test of a Spearman trend.
"""

from rl_assets.analysis.stats.core import (
    EXACT_SIGN_FLIP_MAX,
    MIN_COMMON_TASKS,
    MIN_PERMUTATIONS,
    BootstrapResult,
    NotEnoughData,
    PairedResampler,
    bootstrap_mean_ci,
    mde_from_se,
    minimum_detectable_effect,
    paired_bootstrap_arrays,
    paired_bootstrap_diff,
    sign_flip_pvalue,
    standardized_effect,
)
from rl_assets.analysis.stats.correlation import (
    bootstrap_spearman,
    fisher_z_interval,
    kendall_tau_b,
    pearson,
    pearson_rows,
    spearman,
    spearman_rows,
)
from rl_assets.analysis.stats.intervals import noise_floor, t_interval_95
from rl_assets.analysis.stats.multiplicity import bh_adjust, holm_adjust
from rl_assets.analysis.stats.proportions import (
    binomial_greater,
    binomial_se,
    mcnemar_exact,
    two_proportion_diff_ci,
    wilson_interval,
)
from rl_assets.analysis.stats.resolution import p_floor, permutations_for
from rl_assets.analysis.stats.student_t import t_quantile_975

# the package's interface (what `stats.<name>` callers may use)
__all__ = [
    "EXACT_SIGN_FLIP_MAX",
    "MIN_COMMON_TASKS",
    "MIN_PERMUTATIONS",
    "BootstrapResult",
    "NotEnoughData",
    "PairedResampler",
    "bh_adjust",
    "binomial_greater",
    "binomial_se",
    "bootstrap_mean_ci",
    "bootstrap_spearman",
    "fisher_z_interval",
    "holm_adjust",
    "kendall_tau_b",
    "mcnemar_exact",
    "mde_from_se",
    "minimum_detectable_effect",
    "noise_floor",
    "p_floor",
    "paired_bootstrap_arrays",
    "paired_bootstrap_diff",
    "pearson",
    "pearson_rows",
    "permutations_for",
    "sign_flip_pvalue",
    "spearman",
    "spearman_rows",
    "standardized_effect",
    "t_interval_95",
    "t_quantile_975",
    "two_proportion_diff_ci",
    "wilson_interval",
]
