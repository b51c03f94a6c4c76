"""Reports, stored values and trace tables are created with the process umask (group-readable
under 022/027), not the owner-only 0600 of mkstemp."""

import json
import os
import stat

import dagster as dg
import pytest

from resources.io_manager import RlDeltaIOManager
from rl_assets.fileutil import atomic_write_json, atomic_write_text
from rl_assets.support.trace_tables import ingest_once


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_reports_tables_and_stored_values_follow_the_umask(tmp_path, umask_027, monkeypatch):
    report = atomic_write_text(tmp_path / "reports" / "report.md", "# hi\n")
    sidecar = atomic_write_json(tmp_path / "reports" / "report.json", {"a": 1})
    src = tmp_path / "rows.jsonl"
    src.write_text(json.dumps({"conversations": [], "task": "t", "trial_name": "t__1", "result": "0.0"}) + "\n")
    table = tmp_path / "tables" / "t.parquet"
    ingest_once(None, str(src), table)
    monkeypatch.setenv("RLDELTA_STORAGE", str(tmp_path / "storage"))
    io = RlDeltaIOManager()
    io.handle_output(dg.build_output_context(asset_key=dg.AssetKey("x"), run_id="r1"), {"v": 1})
    stored = tmp_path / "storage" / "x" / "__all__" / "r1.json"
    for path in (report, sidecar, table, stored):
        assert _mode(path) == 0o640, (path, oct(_mode(path)))
    assert not [p for p in tmp_path.rglob(".*.tmp")]  # no temp file left behind
