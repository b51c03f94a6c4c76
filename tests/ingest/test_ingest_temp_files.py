"""Issue 14 (ingest part): a killed ingest's hidden temp file is removed by the next ingest of
that table (a live writer's is not), and tables and stamps get the process umask, not 0600."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from resources.hub import LocalHub
from rl_assets.ingest import ingest_source, read_traces
from rl_assets.support.trace_tables import ingest_once, stamp_path

ROOT = Path(__file__).resolve().parents[2]
WRITER = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from rl_assets.ingest.writer import TraceWriter
from rl_assets.ingest.rows import finish_row
with TraceWriter(Path({out!r}), batch_rows=1) as w:
    w.add(finish_row({{"task_id": "half", "trace_id": "x"}}))
    print("ready", flush=True)
    time.sleep(120)
"""


def _source(tmp_path) -> str:
    src = tmp_path / "x.jsonl"
    src.write_text(json.dumps({"conversations": [], "task": "t", "trial_name": "t__1", "result": "1.0"}) + "\n")
    return str(src)


def _writer_mid_table(out: Path) -> subprocess.Popen:
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER.format(root=str(ROOT), out=str(out))], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "ready"
    return child


def _temps(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.*.tmp"))


def test_a_killed_ingest_leaves_a_temp_that_the_next_ingest_removes(tmp_path):
    out = tmp_path / "tables" / "traces.parquet"
    child = _writer_mid_table(out)
    os.kill(child.pid, signal.SIGKILL)  # kill -9: no cleanup handler runs
    child.wait()
    assert len(_temps(out)) == 1 and not out.exists()
    ingest_source(_source(tmp_path), out, hub=None)
    assert _temps(out) == [] and read_traces(out).num_rows == 1


def test_a_live_writers_temp_is_left_alone(tmp_path):
    out = tmp_path / "tables" / "traces.parquet"
    child = _writer_mid_table(out)
    try:
        ingest_source(_source(tmp_path), out, hub=None)
        assert len(_temps(out)) == 1  # another process is still writing it
    finally:
        child.kill()
        child.wait()


def test_temps_of_unknown_writers_are_removed_once_an_hour_old(tmp_path):
    out = tmp_path / "traces.parquet"
    old, fresh = tmp_path / ".traces.parquet.k3j2l1ab.tmp", tmp_path / ".traces.parquet.otherhost.12.ab12cd34.tmp"
    for f in (old, fresh):
        f.write_bytes(b"PAR1")
    os.utime(old, (time.time() - 7200, time.time() - 7200))  # an mkstemp-style name from an older version
    ingest_source(_source(tmp_path), out, hub=None)
    assert not old.exists() and fresh.exists()


@pytest.fixture
def umask_002():
    previous = os.umask(0o002)
    yield
    os.umask(previous)


def test_tables_and_stamps_follow_the_umask(tmp_path, umask_002):
    data = tmp_path / "hub" / "datasets" / "org" / "evals" / "data"
    data.mkdir(parents=True)
    pq.write_table(
        pa.Table.from_pylist([{"conversations": [], "task": "t", "trial_name": "t__1", "result": "1.0"}]),
        data / "train.parquet",
    )
    table = tmp_path / "tables" / "evals.parquet"
    ingest_once(LocalHub(tmp_path / "hub"), "org/evals", table)
    for f in (table, stamp_path(table)):
        assert stat.S_IMODE(f.stat().st_mode) == 0o664, f  # group-readable and -writable, as the umask says
