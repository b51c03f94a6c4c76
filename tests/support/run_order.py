"""Which test files the parallel workers start first: the ones that take minutes, heaviest first.

scripts/run_tests.sh hands whole files to the workers (`--dist loadfile`) in collection order
(`--no-loadscope-reorder`; xdist's default order is by test count). A long file handed out last keeps
one worker busy after the other has run out of work, so the longest files go first and the many short
ones fill the gaps. The order comes from `--durations` of whole-suite runs (bench/RESULTS.md, "`make test`: the UI
tests' welcome-dialog race"); a file missing from the list only starts later, it still runs.
"""

from __future__ import annotations

from pathlib import Path

RUN_FIRST = (
    "tests/ui/test_ui_browser.py",  # `rldelta demo --run`, then `dagster dev` read in Chromium
    "tests/ui/test_ui_hostile.py",  # `dagster dev` read in Chromium
    "tests/core/test_readme_blocks.py",  # the README's blocks: a demo world and four analyses (~3.5 min)
    "tests/sensors/test_sensors_daemon_upload.py",  # one demo analysis, then `dagster dev` settling twice
    "tests/ui/test_demo_report_links.py",  # `rldelta demo --run` at scale 0.3, its links served (~2.5 min)
    "tests/ui/test_ui_shutdown.py",  # `make ui` started and stopped (one case per file)
    "tests/ui/test_ui_shutdown_ctrl_c.py",
    "tests/ui/test_ui_shutdown_default_budget.py",
    "tests/services/test_scaleout_celery.py",  # two Celery workers beside a single-process run
    "tests/assets/test_run_isolation.py",  # concurrent runs in worker processes
    "tests/demo/test_q2_demo.py",
    "tests/sensors/test_sensors_logs_upload.py",
    "tests/assets/test_integrity_asset.py",
    "tests/demo/test_integrity_demo.py",
    "tests/core/test_core_cli.py",
    "tests/demo/test_q1_demo_truth.py",
    "tests/demo/test_lineage_demo.py",
    "tests/architecture/test_import_cost.py",
)


def order(nodeids: list[str], root: Path) -> list[int]:
    """Sort keys for `nodeids`: a RUN_FIRST file's rank, else one rank after them all (a stable sort keeps
    the collection order of the rest). A listed file that is not on disk is an error, not a silent no-op."""
    missing = [path for path in RUN_FIRST if not (root / path).is_file()]
    if missing:
        raise FileNotFoundError(f"tests/support/run_order.py RUN_FIRST names files that do not exist: {missing}")
    rank = {path: i for i, path in enumerate(RUN_FIRST)}
    return [rank.get(nodeid.split("::", 1)[0], len(rank)) for nodeid in nodeids]
