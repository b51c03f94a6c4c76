"""Trace tables read a batch at a time: the same rows as read_traces, only the ids asked for."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rl_assets.ingest import ADDED_COLUMNS, read_traces
from rl_assets.schema import trace_schema
from rl_assets.support.trace_stream import iter_trace_batches, iter_trace_rows


def _table(n: int) -> pa.Table:
    cols = {name: pa.nulls(n, trace_schema().field(name).type) for name in trace_schema().names}
    cols["trace_id"] = pa.array([f"tr{i}" for i in range(n)], pa.string())
    cols["task_id"] = pa.array([f"task{i % 7}" for i in range(n)], pa.string())
    cols["conversation"] = pa.array([f'[{{"role": "user", "content": "{i}"}}]' for i in range(n)], pa.string())
    return pa.table(cols, schema=trace_schema())


@pytest.fixture
def table_path(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(_table(1000), path, row_group_size=100)
    return path


def test_batches_hold_every_row_once_and_stay_small(table_path):
    cols = ("trace_id", "task_id", "conversation")
    batches = list(iter_trace_batches(table_path, cols, batch_rows=64))
    assert max(b.num_rows for b in batches) <= 64 and len(batches) >= 1000 // 64
    assert pa.concat_tables(batches).equals(read_traces(table_path, cols))


def test_only_the_wanted_ids_become_rows(table_path):
    wanted = {"tr3", "tr500", "tr999", "not-there"}
    rows = [r for batch in iter_trace_rows(table_path, ("trace_id", "conversation"), only=wanted) for r in batch]
    assert [r["trace_id"] for r in rows] == ["tr3", "tr500", "tr999"]
    assert rows[1]["conversation"] == '[{"role": "user", "content": "500"}]'
    # the ids filter also works when trace_id itself is not a requested column
    assert [list(r) for b in iter_trace_rows(table_path, ("task_id",), only={"tr8"}) for r in b] == [["task_id"]]


def test_an_older_table_without_the_newer_columns_reads_them_as_null(tmp_path):
    path = tmp_path / "old.parquet"
    pq.write_table(_table(5).drop_columns(list(ADDED_COLUMNS)), path)
    rows = [r for b in iter_trace_rows(path, ("trace_id", ADDED_COLUMNS[0])) for r in b]
    assert len(rows) == 5 and all(r[ADDED_COLUMNS[0]] is None for r in rows)
    with pytest.raises(KeyError, match="unknown trace columns"):
        next(iter_trace_batches(path, ("no_such_column",)))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        next(iter_trace_batches(tmp_path / "missing.parquet", ("trace_id",)))
