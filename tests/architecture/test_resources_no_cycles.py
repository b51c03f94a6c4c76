"""No import cycle inside resources/: a backend imports its package's shared types module, never
the other backend or the package that re-exports it (docs/contracts.md, "Layout and ownership").

Imports are read with `ast`, including imports inside functions and relative ones. `from pkg import
name` counts as importing `pkg.name` when that is a module; importing a submodule does not count as
importing its parent package.
"""

from __future__ import annotations

from pathlib import Path

from support.layer_rules import imports, module_name, under

ROOT = Path(__file__).resolve().parents[2]


def import_graph(root: Path, package: str = "resources") -> dict[str, set[str]]:
    """module -> the modules of `package` it imports (read as the layer rules read them)."""
    graph = {}
    for path in sorted((root / package).rglob("*.py")):
        module = module_name(path, root)
        graph[module] = {m for m in imports(path, module, root) if m != module and under(m, package)}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (or a module importing itself)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_resources_have_no_import_cycle():
    found = cycles(import_graph(ROOT))
    assert not found, (
        "import cycles inside resources/ (move what both sides need into the package's types.py):\n"
        + "\n".join("  " + " <-> ".join(group) for group in found)
    )


def test_the_cycle_check_can_fail(tmp_path):
    """A fake resources/ tree with the two shapes of cycle the packages replaced: found, and only those."""
    files = {
        "resources/__init__.py": "from resources.hub import HubResource\n",
        "resources/hub/__init__.py": "from resources.hub.local import LocalHub\n",
        "resources/hub/types.py": "",
        "resources/hub/local.py": "from resources.hub.types import HubError\n"
        "def f():\n    from resources.hub.hf import HfHub\n",  # a function-level import
        "resources/hub/hf.py": "from .local import LocalHub\n",  # relative
        "resources/registry/__init__.py": "",
        "resources/registry/sql.py": "from resources.registry import supabase\n",  # `from pkg import module`
        "resources/registry/supabase.py": "from resources.registry.sql import TABLES\n",
        "resources/llm/__init__.py": "from resources.llm.client import LLMClient\n",
        "resources/llm/client.py": "from resources.llm.cache import LLMCache\n",
        "resources/llm/cache.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert cycles(import_graph(tmp_path)) == [
        ["resources.hub.hf", "resources.hub.local"],
        ["resources.registry.sql", "resources.registry.supabase"],
    ]
