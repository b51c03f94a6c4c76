"""Imports run one way between the layer packages (docs/contracts.md, "Layers").

Sources (resources/) -> normalized tables (rl_assets/ingest/) -> pure analyses (rl_assets/analysis/)
-> assets (rl_assets/assets/) -> jobs (rl_assets/jobs/) -> sensors and definitions. The neutral
modules (settings, schema, timestamps, ...) sit below all of them. Every import in the source tree,
including imports inside functions and relative ones, is read with `ast`; an import from a package
into one it must not depend on fails this test, unless it is on the allow-list below.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rl_assets", "resources", "sensors")

# Modules of rl_assets/ that every layer may import: they import no layer package themselves.
NEUTRAL = ("rl_assets.settings", "rl_assets.partitions", "rl_assets.schema", "rl_assets.fileutil",
           "rl_assets.llm_cache", "rl_assets.timestamps", "rl_assets.instance", "rl_assets.masking",
           "rl_assets.escape", "rl_assets.groups", "rl_assets.store")
UPPER = ("rl_assets.definitions", "rl_assets.cli", "sensors")
# Glue of the asset layer (storage, IO manager, registry look-ups): nothing below assets uses it.
GLUE = ("rl_assets.io_manager", "rl_assets.trace_tables", "rl_assets.resolve", "rl_assets.lineage_records")

# importer prefix -> prefixes it must never import
FORBIDDEN = {
    "resources": ("rl_assets.ingest", "rl_assets.analysis", "rl_assets.assets", "rl_assets.jobs",
                  "rl_assets.demo", *GLUE, *UPPER),
    "rl_assets.ingest": ("dagster", "resources", "rl_assets.analysis", "rl_assets.assets", "rl_assets.jobs",
                         "rl_assets.demo", *GLUE, *UPPER),
    "rl_assets.analysis": ("dagster", "resources", "rl_assets.assets", "rl_assets.jobs", "rl_assets.demo",
                           *GLUE, *UPPER),
    "rl_assets.assets": ("rl_assets.jobs", *UPPER),
    "rl_assets.jobs": UPPER,
    **{m: ("dagster._core", "resources", "rl_assets.ingest", "rl_assets.analysis", "rl_assets.assets",
           "rl_assets.jobs", "rl_assets.demo", *GLUE, *UPPER) for m in NEUTRAL},
}

# Backward imports that exist today: to be removed by the renovation (issue 16). Do not add to this
# list; delete an entry when its import goes. (importing module, imported module)
KNOWN_EXCEPTIONS = {
    # analyses build LLM requests with the resource's value type (LLMRequest should move to a neutral module)
    ("rl_assets.analysis.audit.llm_verdict", "resources.llm_client"),
    ("rl_assets.analysis.q1.failure_modes", "resources.llm_client"),
    ("rl_assets.analysis.judge.run", "resources.llm_client"),
    # assets that reach into jobs for a path or a job name (belongs to the store / definitions)
    ("rl_assets.assets.failure_modes", "rl_assets.jobs.write_back"),
}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str) -> set[str]:
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
                if node.module:
                    out.add(".".join(base + [node.module]))
                else:  # `from . import x`: x may be a submodule
                    out.update(".".join(base + [a.name]) for a in node.names)
            else:
                out.add(node.module)
    return out


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def backward_imports(root: Path) -> set[tuple[str, str]]:
    """Every (importer, imported) pair under `root` that breaks a FORBIDDEN rule."""
    found = set()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = _module_name(path, root)
            rules = [bad for owner, bad in FORBIDDEN.items() if _under(module, owner)]
            for imported in _imports(path, module):
                if any(_under(imported, b) for bad in rules for b in bad):
                    found.add((module, imported))
    return found


def test_no_new_backward_import_between_layers():
    new = sorted(backward_imports(ROOT) - KNOWN_EXCEPTIONS)
    assert not new, "backward imports between layer packages (see docs/contracts.md, Layers):\n" + "\n".join(
        f"  {a} imports {b}" for a, b in new)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path):
    """The rule check itself can fail: a fake tree with three kinds of backward import."""
    files = {
        "resources/__init__.py": "",
        "resources/reg.py": "def f():\n    from rl_assets.analysis.eval_resolution import parse_ts\n",
        "rl_assets/__init__.py": "",
        "rl_assets/analysis/__init__.py": "import dagster as dg\n",
        "rl_assets/analysis/q.py": "from ..assets import thing\nfrom . import helpers\n",
        "rl_assets/assets/__init__.py": "from rl_assets.analysis import q\n",  # forward: allowed
        "sensors/__init__.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert backward_imports(tmp_path) == {
        ("resources.reg", "rl_assets.analysis.eval_resolution"),
        ("rl_assets.analysis", "dagster"),
        ("rl_assets.analysis.q", "rl_assets.assets"),
    }


def test_stale_known_exceptions_are_reported():
    """An allow-list entry whose import is gone should be deleted so the list only shrinks. A warning,
    not a failure: branches that remove these imports are merged in any order."""
    for a, b in sorted(KNOWN_EXCEPTIONS - backward_imports(ROOT)):
        warnings.warn(f"{a} no longer imports {b}: delete the pair from KNOWN_EXCEPTIONS", stacklevel=1)
