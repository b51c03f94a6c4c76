"""Imports run one way between the layers, and analyses do no I/O (docs/contracts.md, "Layers").

The rules live in tests/support/layer_rules.py. Each is checked on the real tree, and each is shown able to
fail on a fake tree that breaks it, so a rule that silently stopped matching would be noticed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.layer_rules import IO_EXCEPTIONS, STATS_EXCEPTIONS, analysis_io, backward_imports, statistics_outside_stats

ROOT = Path(__file__).resolve().parents[2]
# There is no allow-list: a backward import fails. Do not add one; move the shared piece to a
# value, shared or support module instead (docs/contracts.md, "Layers").


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_no_backward_import_between_layers():
    new = sorted(backward_imports(ROOT))
    assert not new, "backward imports between layers (see docs/contracts.md, Layers):\n" + "\n".join(
        f"  {a} imports {b}" for a, b in new
    )


def test_analyses_do_no_io():
    found = sorted(analysis_io(ROOT))
    assert not found, (
        "I/O in rl_assets/analysis/ (readers belong in rl_assets/ingest/, writes in the assets):\n"
        + "\n".join(f"  {m}: {what}" for m, what in found)
    )


def test_io_exceptions_are_still_needed():
    """Without the exception, each excepted I/O is reported: the list only names real, justified cases."""
    unexcepted = analysis_io(ROOT, exceptions={})
    for pair in IO_EXCEPTIONS:
        assert pair in unexcepted, f"{pair[0]} no longer uses {pair[1]}: delete it from IO_EXCEPTIONS"


def test_each_import_rule_can_fail(tmp_path):
    """A fake tree that breaks every rule once (function-level, relative and `from pkg import mod`
    imports included) next to imports that are allowed: exactly the broken ones are reported."""
    root = _tree(
        tmp_path,
        {
            "resources/__init__.py": "",
            "resources/hub.py": "from rl_assets.settings import home\nfrom rl_assets.values import escape\n",  # allowed
            "resources/reg.py": "def f():\n    from rl_assets.analysis.eval_resolution import parse_ts\n",
            "resources/llm.py": "from rl_assets.support import mod\n",  # a source reaching a support module
            "resources/reader.py": "from rl_assets.ingest import reader\n",  # one source reaching the other
            "rl_assets/__init__.py": "",
            "rl_assets/settings.py": "from rl_assets.ingest import read\n",  # a shared module importing a layer
            "rl_assets/store.py": "import dagster as dg\nimport dagster._core.instance\nfrom rl_assets import "
            "settings\n",
            "rl_assets/values/__init__.py": "",
            # a value importing Dagster
            "rl_assets/values/timestamps.py": "import dagster as dg\nfrom . import escape\n",
            "rl_assets/values/escape.py": "from rl_assets.store import write\n",  # a value importing a shared module
            "rl_assets/support/__init__.py": "",
            # up; down
            "rl_assets/support/mod.py": "from rl_assets.assets import traces\nfrom rl_assets import store\n",
            "rl_assets/ingest/__init__.py": "from rl_assets.schema import trace_schema\n",  # allowed
            "rl_assets/ingest/reader.py": "import dagster as dg\nfrom rl_assets.analysis import figures\n",
            "rl_assets/analysis/__init__.py": "",
            "rl_assets/analysis/figures.py": "from rl_assets.values.escape import md_text\nfrom rl_assets.schema "
            "import S\n",  # allowed
            "rl_assets/analysis/q.py": "from ..assets import thing\nfrom . import figures\nfrom rl_assets.ingest "
            "import reader\n",
            "rl_assets/analysis/cfg.py": "from rl_assets.settings import home\n",  # settings: not a value
            "rl_assets/analysis/helper.py": "from rl_assets.support.mod import x\n",
            "rl_assets/analysis/dg.py": "def f():\n    import dagster\n",
            "rl_assets/assets/__init__.py": "from . import traces\n",  # the package itself: allowed
            "rl_assets/assets/traces.py": "from rl_assets.analysis import q\nfrom rl_assets.support.mod import x\n",
            "rl_assets/assets/judge.py": "from .traces import load_rows\n",  # asset -> asset
            "rl_assets/assets/modes.py": "from rl_assets.jobs.write_back import repo_from_spec\n",
            "rl_assets/jobs/__init__.py": "from rl_assets.assets import traces\n",  # jobs select assets: allowed
            "rl_assets/jobs/write_back.py": "from rl_assets.definitions import defs\n",
            "rl_assets/definitions.py": "from rl_assets.jobs import write_back\n",
            "rl_assets/cli/__init__.py": "from rl_assets.definitions import defs\n",  # the CLI: allowed
            "rl_assets/cli/ui.py": "from rl_assets.cli import main\n",
            "sensors/__init__.py": "from rl_assets.jobs import write_back\n",
        },
    )
    assert backward_imports(root) == {
        ("resources.reg", "rl_assets.analysis.eval_resolution"),
        ("resources.llm", "rl_assets.support.mod"),
        ("resources.reader", "rl_assets.ingest.reader"),
        ("rl_assets.settings", "rl_assets.ingest"),
        ("rl_assets.store", "dagster._core.instance"),
        ("rl_assets.values.timestamps", "dagster"),
        ("rl_assets.values.escape", "rl_assets.store"),
        ("rl_assets.support.mod", "rl_assets.assets.traces"),
        ("rl_assets.ingest.reader", "dagster"),
        ("rl_assets.ingest.reader", "rl_assets.analysis.figures"),
        ("rl_assets.analysis.q", "rl_assets.assets"),
        ("rl_assets.analysis.q", "rl_assets.ingest.reader"),
        ("rl_assets.analysis.cfg", "rl_assets.settings"),
        ("rl_assets.analysis.helper", "rl_assets.support.mod"),
        ("rl_assets.analysis.dg", "dagster"),
        ("rl_assets.assets.judge", "rl_assets.assets.traces"),
        ("rl_assets.assets.modes", "rl_assets.jobs.write_back"),
        ("rl_assets.jobs.write_back", "rl_assets.definitions"),
    }


def test_a_folder_without_a_layer_is_refused(tmp_path):
    """The layer of a module is its folder: a new folder under rl_assets/ must be given a layer first."""
    root = _tree(
        tmp_path,
        {
            "rl_assets/__init__.py": "",
            "rl_assets/helpers/__init__.py": "",
            "rl_assets/helpers/x.py": "from rl_assets import settings\n",
            "rl_assets/settings.py": "",
        },
    )
    with pytest.raises(ValueError, match="rl_assets/helpers/ has no layer"):
        backward_imports(root)


def test_the_io_rule_can_fail(tmp_path):
    """Each kind of I/O in a fake analysis is reported; in-memory look-alikes are not."""
    root = _tree(
        tmp_path,
        {
            "rl_assets/__init__.py": "",
            "rl_assets/analysis/__init__.py": "",
            # the listed exception
            "rl_assets/analysis/render/figures.py": "def png(fig, buf):\n    fig.savefig(buf)\n",
            "rl_assets/analysis/walk.py": "import subprocess\nfrom os import walk\n\ndef f(p):\n"
            "    from shutil import copy\n    return open(p).read()\n",
            "rl_assets/analysis/paths.py": "def f(p, df, fig):\n    p.read_text(); p.write_bytes(b''); p.rglob('*')\n"
            "    df.to_csv('x.csv'); fig.savefig('x.png'); return df.read_parquet(p)\n",
            "rl_assets/analysis/pure.py": "import io\nimport json\n\ndef f(df):\n"
            "    return df.to_csv(index=False), io.BytesIO(b''), json.dumps({})\n",
        },
    )
    assert analysis_io(root) == {
        ("rl_assets.analysis.walk", "subprocess"),
        ("rl_assets.analysis.walk", "os"),
        ("rl_assets.analysis.walk", "shutil"),
        ("rl_assets.analysis.walk", "open"),
        ("rl_assets.analysis.paths", "read_text"),
        ("rl_assets.analysis.paths", "write_bytes"),
        ("rl_assets.analysis.paths", "rglob"),
        ("rl_assets.analysis.paths", "to_csv"),
        ("rl_assets.analysis.paths", "savefig"),
        ("rl_assets.analysis.paths", "read_parquet"),
    }


def test_statistics_only_in_stats():
    found = sorted(statistics_outside_stats(ROOT))
    assert not found, "statistics computed outside rl_assets/analysis/stats/ (docs/statistics.md):\n" + "\n".join(
        f"  {m}: {what}" for m, what in found
    )


def test_the_statistics_rule_can_fail(tmp_path):
    """Each kind of statistic outside stats/ is reported; stats/ itself and descriptive means are not."""
    root = _tree(
        tmp_path,
        {
            "rl_assets/__init__.py": "",
            "rl_assets/analysis/stats/core.py": "import numpy as np\n\ndef q(x):\n    return np.quantile(x, 0.975) * "
            "1.96\n",
            "rl_assets/analysis/q9.py": "import numpy as np\nfrom statistics import NormalDist, mean\n\ndef f(x, y):\n"
            "    return np.corrcoef(x, y), x.quantile(0.9), mean(x) + 1.96 * x.std()\n",
            "rl_assets/assets/q9.py": "def f(x):\n    from scipy.stats import t\n    return t.ppf(0.975, 3)\n",
            "resources/__init__.py": "",
            "sensors/__init__.py": "",
        },
    )
    assert statistics_outside_stats(root) == {
        ("rl_assets.analysis.q9", "NormalDist"),
        ("rl_assets.analysis.q9", "corrcoef"),
        ("rl_assets.analysis.q9", "quantile"),
        ("rl_assets.analysis.q9", "1.96"),
        ("rl_assets.assets.q9", "scipy.stats"),
        ("rl_assets.assets.q9", "ppf"),
    }


def test_statistics_exceptions_are_still_needed(tmp_path):
    """Without its exception, each excepted module is reported: the exception is not dead weight."""
    for prefix in STATS_EXCEPTIONS:
        src = ROOT.joinpath(*prefix.split("."))
        copy = _tree(tmp_path / prefix, {f"{p.relative_to(ROOT)}": p.read_text() for p in src.rglob("*.py")})
        _tree(copy, {"rl_assets/__init__.py": "", "resources/__init__.py": "", "sensors/__init__.py": ""})
        others = {k: v for k, v in STATS_EXCEPTIONS.items() if k != prefix}
        found = statistics_outside_stats(copy, others)
        assert any(m.startswith(prefix) for m, _ in found), f"{prefix} computes no statistic: delete its exception"
