"""The layer rules of docs/contracts.md ("Layers"), read from source with `ast` (tests/architecture/test_layers.py).

The layer of a module is its path. sources (resources/, rl_assets/ingest/) -> pure analyses
(rl_assets/analysis/) -> assets (rl_assets/assets/) -> jobs (rl_assets/jobs/) -> sensors/,
rl_assets/definitions.py, rl_assets/cli/. Below every layer: the pure values (rl_assets/values/) and
the shared modules (the files directly in rl_assets/: settings, partitions, schema, store, ...).
Just below the assets: the Dagster-side helpers (rl_assets/support/, and the demo world builder
rl_assets/demo/). Every import is read, including imports inside functions and relative ones;
`from pkg import name` counts as importing `pkg.name` when that is a module of the tree.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGES = ("rl_assets", "resources", "sensors")
FIRST_PARTY = PACKAGES

# The folders of rl_assets/ and their layer. A folder that is not here has no layer: the rules refuse it.
FOLDERS = {
    "values": "values",  # pure values: no Dagster, no I/O, nothing first-party outside values/
    "ingest": "sources",
    "analysis": "analysis",
    "assets": "assets",
    "jobs": "jobs",
    "support": "support",
    "demo": "support",  # builds the demo world from the sources and the values; imports no asset or job
    "cli": "upper",
}
# The one shared module an analysis may read: the table schemas are values (pyarrow schemas), not
# settings, files or Dagster partitions.
ANALYSIS_SHARED = ("rl_assets.schema",)
ASSETS, JOBS = "rl_assets.assets", "rl_assets.jobs"


def layer(name: str, root: Path) -> str:
    """The layer of first-party module `name`, read from its path under `root`."""
    parts = name.split(".")
    if parts[0] == "resources":
        return "resources"
    if parts[0] == "sensors":
        return "upper"
    if len(parts) == 1:
        return "support"  # rl_assets/__init__.py
    if not (root / "rl_assets" / parts[1]).is_dir():  # a file directly in rl_assets/
        return "upper" if parts[1] == "definitions" else "shared"
    if parts[1] not in FOLDERS:
        raise ValueError(
            f"rl_assets/{parts[1]}/ has no layer: add it to FOLDERS in tests/layer_rules.py (docs/contracts.md, Layers)"
        )
    return FOLDERS[parts[1]]


# Analyses do no I/O: no module that reaches files, processes or the network, and no call that does.
IO_MODULES = (
    "subprocess",
    "shutil",
    "glob",
    "socket",
    "urllib",
    "requests",
    "httpx",
    "http",
    "os",
    "tempfile",
    "fsspec",
    "upath",
    "huggingface_hub",
    "openai",
    "supabase",
    "psycopg",
    "sqlite3",
    "importlib",
)
IO_CALLS = (
    "read_text",
    "write_text",
    "read_bytes",
    "write_bytes",
    "mkdir",
    "glob",
    "rglob",
    "iterdir",
    "walk",
    "unlink",
    "rmdir",
    "touch",
    "savefig",
    "read_parquet",
    "read_csv",
    "read_json",
    "to_parquet",
    "read_table",
    "write_table",
    "ParquetFile",
    "ParquetWriter",
    "read_schema",
    "read_metadata",
    "open",
    "exists",
    "stat",
    "is_file",
    "is_dir",
    "save",
    "load",
)
IO_WITH_TARGET = ("to_csv", "to_json")  # with a path argument they write a file; without, they return text
# (module, call) -> why it is not file I/O. Explicit, justified, and only shrinks.
IO_EXCEPTIONS = {
    ("rl_assets.analysis.render.figures", "savefig"): "renders a figure into an in-memory BytesIO buffer (PNG bytes)",
    ("rl_assets.analysis.render.figures", "open"): "Image.open of PNG bytes in a BytesIO (shrinks a plot for the UI)",
    ("rl_assets.analysis.render.figures", "save"): "saves the shrunk image into a BytesIO buffer, not a file",
    ("rl_assets.analysis.audit.rulers", "importlib.metadata"): "names the installed reasoning-gym release in the "
    "report's ruler line: package metadata, no data",
    ("rl_assets.analysis.lineage.index_links", "os"): "os.path.relpath between two report paths the asset passes "
    "in: path arithmetic, no file is touched",
}


# Statistics (quantiles, intervals, bootstraps, permutation tests, correlations) only in analysis/stats/.
STATS = "rl_assets.analysis.stats"
STATS_MODULES = ("scipy", "statsmodels")
STATS_CALLS = (
    "corrcoef",
    "quantile",
    "nanquantile",
    "percentile",
    "nanpercentile",
    "correlation",
    "covariance",
    "quantiles",
    "NormalDist",
    "inv_cdf",
    "ppf",
    "spearmanr",
    "pearsonr",
    "kendalltau",
    "ttest_ind",
    "ttest_rel",
    "bootstrap",
    "permutation_test",
)
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


def _violates(importer: str, imported: str, is_pkg: bool, root: Path) -> bool:
    """Whether `importer` may not import `imported` (the rules of docs/contracts.md, "Layers")."""
    if imported == importer:
        return False
    mine = layer(importer, root)
    theirs = layer(imported, root) if _first_party(imported) else None
    if mine == "values":
        return under(imported, "dagster") or theirs not in (None, "values")
    if mine == "shared":
        return under(imported, "dagster._core") or theirs not in (None, "values", "shared")
    if mine == "resources":  # sources meet rl_assets only through the values and the shared modules
        return theirs not in (None, "values", "shared", "resources")
    if mine == "sources":
        return under(imported, "dagster") or (
            theirs not in (None, "values", "shared") and not under(imported, "rl_assets.ingest")
        )
    if mine == "analysis":
        return under(imported, "dagster") or (
            theirs not in (None, "values", "analysis") and not any(under(imported, n) for n in ANALYSIS_SHARED)
        )
    if mine == "assets":  # an asset module imports no other asset module, no job
        other_asset = theirs == "assets" and not is_pkg
        return other_asset or theirs in ("jobs", "upper")
    if mine == "jobs":
        return theirs == "upper"
    if mine == "upper":
        return False
    # support: below the assets and jobs
    return theirs in ("assets", "jobs", "upper")


def backward_imports(root: Path) -> set[tuple[str, str]]:
    """Every (importer, imported) pair under `root` that breaks a layer rule."""
    found = set()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            for imported in imports(path, module, root):
                if _violates(module, imported, path.name == "__init__.py", root):
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
            elif isinstance(fn, ast.Attribute) and (
                fn.attr in IO_CALLS
                or (fn.attr in IO_WITH_TARGET and (node.args or any(k.arg == "path_or_buf" for k in node.keywords)))
            ):
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
                elif (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, float)
                    and any(abs(node.value - z) < 1e-3 for z in Z_CRITICAL)
                ):
                    found.add((module, repr(node.value)))
    return found
