"""The layer rules of docs/contracts.md ("Layers"), read from source with `ast` (tests/architecture/test_layers.py).

sources (resources/, rl_assets/ingest/) -> pure analyses (rl_assets/analysis/) -> assets
(rl_assets/assets/) -> jobs (rl_assets/jobs/) -> sensors, definitions, cli. Neutral modules sit
below every layer; support modules (the other rl_assets/*.py: storage, IO manager, shared asset
checks, the ingest step) sit just below the assets. Every import is read, including imports inside
functions and relative ones; `from pkg import name` counts as importing `pkg.name` when that is a
module of the tree.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGES = ("rl_assets", "resources", "sensors")
FIRST_PARTY = PACKAGES

# Value types and plumbing every layer may import; they import only each other.
NEUTRAL = ("rl_assets.settings", "rl_assets.partitions", "rl_assets.schema", "rl_assets.fileutil",
           "resources.llm.cache", "rl_assets.timestamps", "rl_assets.instance", "rl_assets.masking",
           "rl_assets.escape", "rl_assets.llm_types", "rl_assets.conversation", "rl_assets.metric_aliases",
           "rl_assets.store", "rl_assets.groups", "rl_assets.task_identity", "rl_assets.store_checks")
# The neutral modules a pure analysis may use: values only (no settings, files, caches, instance,
# and not partitions, which builds Dagster partition definitions).
VALUES = ("rl_assets.schema", "rl_assets.timestamps", "rl_assets.masking", "rl_assets.escape",
          "rl_assets.llm_types", "rl_assets.conversation", "rl_assets.metric_aliases", "rl_assets.groups",
          "rl_assets.task_identity")
UPPER = ("rl_assets.definitions", "rl_assets.cli", "sensors")
ASSETS, JOBS = "rl_assets.assets", "rl_assets.jobs"

# Analyses do no I/O: no module that reaches files, processes or the network, and no call that does.
IO_MODULES = ("subprocess", "shutil", "glob", "socket", "urllib", "requests", "httpx", "http", "os", "tempfile",
              "fsspec", "upath", "huggingface_hub", "openai", "supabase", "psycopg", "sqlite3", "importlib")
IO_CALLS = ("read_text", "write_text", "read_bytes", "write_bytes", "mkdir", "glob", "rglob", "iterdir", "walk",
            "unlink", "rmdir", "touch", "savefig", "read_parquet", "read_csv", "read_json", "to_parquet",
            "read_table", "write_table", "ParquetFile", "ParquetWriter", "read_schema", "read_metadata", "open",
            "exists", "stat", "is_file", "is_dir", "save", "load")
IO_WITH_TARGET = ("to_csv", "to_json")  # with a path argument they write a file; without, they return text
# (module, call) -> why it is not file I/O. Explicit, justified, and only shrinks.
IO_EXCEPTIONS = {
    ("rl_assets.analysis.figures", "savefig"): "renders a figure into an in-memory BytesIO buffer (PNG bytes)",
    ("rl_assets.analysis.figures", "open"): "Image.open of PNG bytes in a BytesIO (shrinks a plot for the UI)",
    ("rl_assets.analysis.figures", "save"): "saves the shrunk image into a BytesIO buffer, not a file",
    ("rl_assets.analysis.audit.rulers", "importlib.metadata"): "names the installed reasoning-gym release in the "
                                                               "report's ruler line: package metadata, no data",
    ("rl_assets.analysis.lineage.index_links", "os"): "os.path.relpath between two report paths the asset passes "
                                                      "in: path arithmetic, no file is touched",
}


# Statistics (quantiles, intervals, bootstraps, permutation tests, correlations) only in analysis/stats/.
STATS = "rl_assets.analysis.stats"
STATS_MODULES = ("scipy", "statsmodels")
STATS_CALLS = ("corrcoef", "quantile", "nanquantile", "percentile", "nanpercentile", "correlation", "covariance",
               "quantiles", "NormalDist", "inv_cdf", "ppf", "spearmanr", "pearsonr", "kendalltau", "ttest_ind",
               "ttest_rel", "bootstrap", "permutation_test")
Z_CRITICAL = (1.96, 1.959964, 1.645, 2.576)  # a hand-built normal interval
# (module prefix) -> why it may compute statistics itself.
STATS_EXCEPTIONS = {
    "rl_assets.demo": "the demo's ground truth measures its synthetic data independently of stats/ on purpose: "
                      "it is what the analyses' results are checked against",
}


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(root: Path, name: str) -> bool:
    base = root.joinpath(*name.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def imports(path: Path, module: str, root: Path) -> set[str]:
    """Absolute names of every module `path` imports (relative imports resolved)."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                pkg = ".".join(base + ([node.module] if node.module else []))
            else:
                pkg = node.module
            subs = [f"{pkg}.{a.name}" for a in node.names if _is_module(root, f"{pkg}.{a.name}")]
            out.update(subs or [pkg])
            if len(subs) < len(node.names):
                out.add(pkg)
    return out


def _first_party(name: str) -> bool:
    return any(under(name, p) for p in FIRST_PARTY)


def _violates(importer: str, imported: str, is_pkg: bool) -> bool:
    """Whether `importer` may not import `imported` (the rules of docs/contracts.md, "Layers")."""
    if imported == importer:
        return False
    if any(under(importer, n) for n in NEUTRAL):
        return under(imported, "dagster._core") or (_first_party(imported) and not any(under(imported, n) for n in NEUTRAL))
    if under(importer, "resources"):  # sources meet rl_assets only through neutral modules
        return _first_party(imported) and not (under(imported, "resources") or any(under(imported, n) for n in NEUTRAL))
    if under(importer, "rl_assets.ingest"):
        return under(imported, "dagster") or (_first_party(imported) and not (
            under(imported, "rl_assets.ingest") or any(under(imported, n) for n in NEUTRAL)))
    if under(importer, "rl_assets.analysis"):
        return under(imported, "dagster") or (_first_party(imported) and not (
            under(imported, "rl_assets.analysis") or any(under(imported, n) for n in VALUES)))
    if under(importer, ASSETS):  # an asset module imports no other asset module, no job
        other_asset = under(imported, ASSETS) and not is_pkg
        return other_asset or under(imported, JOBS) or any(under(imported, u) for u in UPPER)
    if under(importer, JOBS):
        return any(under(imported, u) for u in UPPER)
    if any(under(importer, u) for u in UPPER):
        return False
    # support modules (the rest of rl_assets/): below the assets and jobs
    return under(imported, ASSETS) or under(imported, JOBS) or any(under(imported, u) for u in UPPER)


def backward_imports(root: Path) -> set[tuple[str, str]]:
    """Every (importer, imported) pair under `root` that breaks a layer rule."""
    found = set()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            for imported in imports(path, module, root):
                if _violates(module, imported, path.name == "__init__.py"):
                    found.add((module, imported))
    return found


def analysis_io(root: Path, exceptions=IO_EXCEPTIONS) -> set[tuple[str, str]]:
    """(analysis module, I/O module or call) for every I/O an analysis does, minus the exceptions."""
    found = set()
    for path in sorted((root / "rl_assets" / "analysis").rglob("*.py")):
        module = module_name(path, root)
        for imported in imports(path, module, root):
            if imported.split(".")[0] in IO_MODULES:
                found.add((module, imported))
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            if isinstance(fn, ast.Name) and fn.id == "open":
                found.add((module, "open"))
            elif isinstance(fn, ast.Attribute) and (fn.attr in IO_CALLS or (
                    fn.attr in IO_WITH_TARGET and (node.args or any(k.arg == "path_or_buf" for k in node.keywords)))):
                found.add((module, fn.attr))
    return found - set(exceptions)


def statistics_outside_stats(root: Path, exceptions=STATS_EXCEPTIONS) -> set[tuple[str, str]]:
    """(module, what) for every statistic computed outside analysis/stats/ (minus the exceptions)."""
    found = set()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            if under(module, STATS) or any(under(module, m) for m in exceptions):
                continue
            for imported in imports(path, module, root):
                if imported.split(".")[0] in STATS_MODULES:
                    found.add((module, imported))
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.ImportFrom) and node.module == "statistics":
                    found.update((module, a.name) for a in node.names if a.name in STATS_CALLS)
                elif isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
                    if name in STATS_CALLS:
                        found.add((module, name))
                elif isinstance(node, ast.Constant) and isinstance(node.value, float) and any(
                        abs(node.value - z) < 1e-3 for z in Z_CRITICAL):
                    found.add((module, repr(node.value)))
    return found
