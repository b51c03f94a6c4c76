"""Loading the Dagster definitions (webserver, daemon, every run) does not import the heavy
libraries that only some steps use: they are imported where they are used (bench/bench_import.py
measures the cost). `import dagster` loads none of them itself, so each one here is extra time."""

import subprocess
import sys

LAZY = ("matplotlib", "scipy", "reasoning_gym", "pandas", "pyarrow", "numpy", "sqlalchemy")


def _loaded(code: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()


def _heavy_after(statement: str) -> list[str]:
    return _loaded(f"import sys; {statement}; print(' '.join(m for m in {LAZY!r} if m in sys.modules))")


def test_definitions_do_not_import_the_heavy_libraries():
    loaded = _heavy_after("import rl_assets.definitions")
    assert loaded == [], f"imported at definition time: {loaded} (import them inside the function that uses them)"


def test_dagster_alone_loads_none_of_them():
    # Were dagster to load one itself, deferring it here would save nothing: the list is worth keeping.
    assert _heavy_after("import dagster") == []


def test_the_lazy_imports_work_where_used():
    code = (
        "import sys; from rl_assets.analysis import stats; from rl_assets.analysis.render.figures import pyplot; "
        "from rl_assets.schema import trace_schema; from resources.registry import tables; "
        "stats.t_quantile_975(3); pyplot(); s = trace_schema(); t = tables(); "
        "print(*(m in sys.modules for m in ('scipy', 'matplotlib.pyplot', 'pyarrow', 'sqlalchemy')), "
        "len(s) > 50, sorted(t) == ['benchmarks', 'models', 'sandbox_jobs'])"
    )
    assert _loaded(code) == ["True"] * 6
