"""Each room of rl_assets stands alone (docs/contracts.md, "Layout and ownership"): the analyses and
readers hold no import cycle, and the verl / HF Trainer / TensorBoard readers take their shared pieces
from ingest/training_logs/, never from the SkyRL reader, which is one reader among them.

The import graph is read as test_resources_no_cycles.py reads it (`ast`, function-level and relative
imports included; importing a submodule does not import its parent package).
"""

from __future__ import annotations

from pathlib import Path

from test_resources_no_cycles import cycles

from support.layer_rules import imports, module_name, under

ROOT = Path(__file__).resolve().parents[2]
SKYRL = "rl_assets.ingest.skyrl_log"
DISPATCHER = "rl_assets.ingest.training_logs"  # hands a folder to one reader, the SkyRL one among them


def graph_of(root: Path, package: str) -> dict[str, set[str]]:
    """module -> the modules of the dotted `package` it imports."""
    graph = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        module = module_name(path, root)
        graph[module] = {m for m in imports(path, module, root) if m != module and under(m, package)}
    return graph


def skyrl_borrowers(root: Path) -> list[tuple[str, str]]:
    """(module, what it imports) for every training_logs/ module but the dispatcher that imports the SkyRL reader."""
    found = []
    for path in sorted((root / "rl_assets/ingest/training_logs").rglob("*.py")):
        module = module_name(path, root)
        if module != DISPATCHER:
            found += [(module, m) for m in sorted(imports(path, module, root)) if under(m, SKYRL)]
    return found


def test_no_package_holds_an_import_cycle():
    """Not the analyses and readers only: the CLI held the last circle (its entry point and two command
    modules importing each other's helpers), now in rl_assets/cli/instance.py."""
    found = [c for pkg in ("rl_assets", "resources", "sensors") for c in cycles(graph_of(ROOT, pkg))]
    assert not found, "import cycles (move what both sides need where both may import it):\n" + "\n".join(
        "  " + " <-> ".join(group) for group in found
    )


def test_trainer_readers_borrow_nothing_from_the_skyrl_reader():
    found = skyrl_borrowers(ROOT)
    assert not found, "move the shared piece into rl_assets/ingest/training_logs/:\n" + "\n".join(
        f"  {a} imports {b}" for a, b in found
    )


def test_the_room_checks_can_fail(tmp_path):
    """A fake tree with a reader borrowing from the SkyRL reader and an analysis cycle: both found."""
    files = {
        "rl_assets/__init__.py": "",
        "rl_assets/ingest/__init__.py": "",
        "rl_assets/ingest/skyrl_log/__init__.py": "",
        "rl_assets/ingest/skyrl_log/files.py": "",
        "rl_assets/ingest/training_logs/__init__.py": "from rl_assets.ingest import skyrl_log\n",  # allowed
        "rl_assets/ingest/training_logs/verl_console.py": "from rl_assets.ingest.skyrl_log.files import open_text\n",
        "rl_assets/analysis/__init__.py": "",
        "rl_assets/analysis/audit/__init__.py": "",
        "rl_assets/analysis/audit/audit.py": "def f():\n    from rl_assets.analysis.audit.contrastive import g\n",
        "rl_assets/analysis/audit/contrastive.py": "from .audit import given_answer\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert skyrl_borrowers(tmp_path) == [
        ("rl_assets.ingest.training_logs.verl_console", "rl_assets.ingest.skyrl_log.files")
    ]
    assert cycles(graph_of(tmp_path, "rl_assets.analysis")) == [
        ["rl_assets.analysis.audit.audit", "rl_assets.analysis.audit.contrastive"]
    ]
