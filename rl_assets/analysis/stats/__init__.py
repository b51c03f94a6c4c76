"""All statistics rldelta reports, importable as one module: `from rl_assets.analysis import stats`.

core.py: intervals, paired tests, bootstraps, multiple-comparison corrections (docs/statistics.md).
correlation.py: rank correlations, their bootstrap intervals and the Fisher-z interval of r (trends, attribution).
student_t.py: Student t critical values; intervals.py: the t interval of a mean (the Q2 reward interval)
and the re-run noise floor of a solve rate (model comparison); resolution.py: the smallest p the
sign-flip test can return and the flips a Holm threshold needs (run lineage).
"""

from rl_assets.analysis.stats.core import *  # noqa: F401,F403
from rl_assets.analysis.stats.core import (  # noqa: F401  (names without __all__ coverage)
    EXACT_SIGN_FLIP_MAX,
    MIN_COMMON_TASKS,
    MIN_PERMUTATIONS,
    BootstrapResult,
    NotEnoughData,
    PairedResampler,
)
from rl_assets.analysis.stats.correlation import bootstrap_spearman, kendall_tau_b, pearson, pearson_rows, spearman  # noqa: F401
from rl_assets.analysis.stats.correlation import fisher_z_interval  # noqa: F401
from rl_assets.analysis.stats.intervals import noise_floor, t_interval_95  # noqa: F401
from rl_assets.analysis.stats.resolution import p_floor, permutations_for  # noqa: F401
from rl_assets.analysis.stats.student_t import t_quantile_975  # noqa: F401
