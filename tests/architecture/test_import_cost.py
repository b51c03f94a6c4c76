"""Loading the Dagster definitions (webserver, daemon, every run) does not import the heavy
libraries that only some steps use: they are imported where they are used (bench/bench_import.py
measures the cost)."""

import subprocess
import sys

LAZY = ("matplotlib", "scipy", "reasoning_gym")


def test_definitions_do_not_import_plotting_statistics_or_the_audit_libraries():
    code = f"import sys, rl_assets.definitions; print(' '.join(m for m in {LAZY!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert loaded == [], f"imported at definition time: {loaded} (import them inside the function that uses them)"


def test_the_lazy_imports_work_where_used():
    code = (
        "import sys; from rl_assets.analysis import stats; from rl_assets.analysis.figures import pyplot; "
        "stats.t_quantile_975(3); pyplot(); print('scipy' in sys.modules, 'matplotlib.pyplot' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert out == ["True", "True"]
