"""Assets stay thin (docs/contracts.md, "Layers"): an asset calls an analysis, writes what the
question's report.py returns, logs metadata and returns. So no asset module draws a plot (imports
matplotlib / PIL, calls savefig), encodes an image (base64, io.BytesIO) or builds a markdown table by
hand (a `|---|` separator literal); no module anywhere builds a table except through md_table
(rl_assets/values/escape.py, the one table writer). Each question's report.py returns content, writes no file.
No asset module holds path logic either: it joins no path (no `/` with a string or f-string operand,
no `Path(`/`UPath(` call, no `os.path`) and writes no file itself; report places and writes belong
to rl_assets/support/report_files.py and rl_assets/store.py.

Every module is read with `ast` (string literals, imported names, attribute and call names), so a
helper imported inside a function is seen too. The checker is run on a fake tree first to show
that each rule can fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rl_assets", "resources", "sensors")
TABLE_WRITER = "rl_assets/values/escape.py"  # md_table, the one table writer

# A markdown table separator row (`|---|`, `| :---: |`), as hand-built tables write it.
TABLE_RULE = re.compile(r"\|\s*:?-{3,}:?\s*\|")
ASSET_IMPORTS = ("matplotlib", "PIL", "base64", "io")  # plotting and image encoding live in analysis/
ASSET_NAMES = {"BytesIO", "b64encode", "savefig"}
PATH_CALLS = {"Path", "UPath", "PurePath", "PurePosixPath"}
FILE_WRITES = {
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "atomic_write_files",
    "atomic_write_parquet",
    "write_text",
    "write_bytes",
    "open",
}
# (asset module, fault) -> why it is allowed. Explicit, justified, and only shrinks. Empty: none is needed.
PATH_EXCEPTIONS: dict[tuple[str, str], str] = {}
REPORT_WRITES = {"open", "write_text", "write_bytes", "mkdir"} | {
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "atomic_write_files",
    "atomic_write_parquet",
}


def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(), str(path))


def _imports(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(a.name for a in node.names)
    return out


def _names(tree: ast.AST) -> set[str]:
    """Names, attribute names and imported names used anywhere in the module."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.add(node.name.rsplit(".", 1)[-1])
    return out


def _table_literals(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and TABLE_RULE.search(node.value)
    ]


def asset_faults(path: Path) -> list[str]:
    """What makes one asset module more than a thin wrapper (its tables are checked with every module's)."""
    tree, where = _tree(path), path.name
    faults = [
        f"{where} imports {m}"
        for m in sorted(_imports(tree))
        if any(m == p or m.startswith(p + ".") for p in ASSET_IMPORTS)
    ]
    return faults + [f"{where} uses {n}" for n in sorted(_names(tree) & ASSET_NAMES)]


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _called(node: ast.Call) -> str | None:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def path_faults(path: Path) -> list[str]:
    """Path logic in an asset module: joining paths, building Path objects, os.path, writing files."""
    tree, where, out = _tree(path), path.name, []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and (_is_text(node.left) or _is_text(node.right))
        ):
            out.append(f"{where}:{line} joins a path")
        elif isinstance(node, ast.Call) and _called(node) in PATH_CALLS:
            out.append(f"{where}:{line} calls {_called(node)}(")
        elif isinstance(node, ast.Call) and _called(node) in FILE_WRITES:
            out.append(f"{where}:{line} writes a file ({_called(node)})")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            out.append(f"{where}:{line} uses os.path")
    imported = _imports(tree)
    out += [f"{where} imports {m}" for m in sorted(imported) if m in ("os.path", "rl_assets.fileutil")]
    if any(
        isinstance(n, ast.ImportFrom) and n.module == "os" and any(a.name == "path" for a in n.names)
        for n in ast.walk(tree)
    ):
        out.append(f"{where} imports os.path")
    return [f for f in out if (where, f.split(" ", 1)[1]) not in PATH_EXCEPTIONS]


def table_faults(path: Path, root: Path) -> list[str]:
    """A markdown table built by hand anywhere but in the table writer itself."""
    where = path.relative_to(root).as_posix()
    if where == TABLE_WRITER:
        return []
    return [f"{where}:{line} builds a markdown table by hand (use md_table)" for line in _table_literals(_tree(path))]


def report_faults(path: Path, root: Path) -> list[str]:
    """A question's report.py that writes a file instead of returning content."""
    tree, where = _tree(path), path.relative_to(root).as_posix()
    writes = sorted(_names(tree) & REPORT_WRITES) + sorted(m for m in _imports(tree) if m == "rl_assets.fileutil")
    return [f"{where} writes files ({w}): report.py returns content, the asset writes it" for w in writes]


def faults_under(root: Path) -> list[str]:
    out = []
    for path in sorted((root / "rl_assets" / "assets").glob("*.py")):
        out += asset_faults(path) + path_faults(path)
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            out += table_faults(path, root)
    for path in sorted((root / "rl_assets" / "analysis").rglob("report.py")):
        out += report_faults(path, root)
    return out


def test_assets_are_thin_and_tables_come_from_md_table():
    faults = faults_under(ROOT)
    assert not faults, "rendering or path logic in an asset module:\n" + "\n".join(f"  {f}" for f in faults)


def test_every_question_folder_has_a_report_module():
    analysis = ROOT / "rl_assets" / "analysis"
    missing = [
        q
        for q in ("q1", "q2", "q3", "q4", "compare", "audit", "judge", "lineage")
        if not (analysis / q / "report.py").is_file()
    ]
    assert not missing, f"question folders without report.py: {missing}"


def test_the_checker_finds_each_fault(tmp_path):
    """The rules can fail: a fake tree with one asset and two analysis modules breaking each rule."""
    files = {
        "rl_assets/assets/fat.py": (
            "import io\nimport matplotlib.pyplot as plt\n"
            "def f(fig, rows):\n"
            "    from base64 import b64encode\n"
            "    buf = io.BytesIO()\n    fig.savefig(buf)\n"
            "    return b64encode(buf.getvalue()), '| a | b |\\n|---|---:|\\n' + rows\n"
        ),
        "rl_assets/assets/pathy.py": (
            "import os\nfrom os import path\nfrom pathlib import Path\nfrom rl_assets.fileutil import "
            "atomic_write_text\n"
            "def f(folder, name):\n"
            "    atomic_write_text(folder / 'report.md', 'x')\n"
            "    return Path(folder) / f'{name}.json', os.path.join(folder, 'a'), 'runs' / folder\n"
        ),
        "rl_assets/assets/thin.py": ("from rl_assets.values.escape import md_table\nX = md_table(['a'], [[1]])\n"),
        "rl_assets/analysis/q9/report.py": (
            "from rl_assets.fileutil import atomic_write_text\ndef f(path):\n    path.write_text('| x |\\n| :--- |')\n"
        ),
        "rl_assets/values/escape.py": "SEP = '|---|'\n",  # the one table writer may hold a rule
        "resources/hub.py": "def f():\n    return ['| a |', '| ---: |']\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    faults = faults_under(tmp_path)
    assert sorted(faults) == sorted(
        [
            "fat.py imports base64",
            "fat.py imports io",
            "fat.py imports matplotlib.pyplot",
            "fat.py uses BytesIO",
            "fat.py uses b64encode",
            "fat.py uses savefig",
            "pathy.py:6 joins a path",
            "pathy.py:6 writes a file (atomic_write_text)",
            "pathy.py:7 joins a path",
            "pathy.py:7 joins a path",
            "pathy.py:7 calls Path(",
            "pathy.py:7 uses os.path",
            "pathy.py imports rl_assets.fileutil",
            "pathy.py imports os.path",
            "rl_assets/assets/fat.py:7 builds a markdown table by hand (use md_table)",
            "rl_assets/analysis/q9/report.py:3 builds a markdown table by hand (use md_table)",
            "resources/hub.py:2 builds a markdown table by hand (use md_table)",
            "rl_assets/analysis/q9/report.py writes files (atomic_write_text): report.py returns content, the asset "
            "writes it",
            "rl_assets/analysis/q9/report.py writes files (rl_assets.fileutil): report.py returns content, the asset "
            "writes it",
            "rl_assets/analysis/q9/report.py writes files (write_text): report.py returns content, the asset writes it",
        ]
    ), faults
