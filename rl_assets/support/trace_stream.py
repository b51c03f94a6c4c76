"""Read a normalized trace table a record batch at a time, only the columns and rows asked for.

The conversation column is most of a table's bytes. Reading it whole (`read_traces`) makes an
analysis step's memory grow with the input (failure_modes: 660 → 1,853 MB at 4× the rows);
here at most one batch of it is decoded at a time, and rows outside `only` are dropped
before they become Python objects, so a step's peak stays flat in the table's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pyarrow as pa

# Rows decoded per batch. 128 rather than 256: failure_modes peaks 35-70 MB lower at 4x at the same
# speed; 64 cost +2 s at 4x in per-batch overhead (bench/RESULTS.md, "Fifth pass").
BATCH_ROWS = 128


def iter_trace_batches(
    path, columns: Iterable[str], only: set[str] | None = None, batch_rows: int = BATCH_ROWS
) -> Iterator[pa.Table]:
    """Batches (as tables of the trace_schema() types) of `columns`; with `only`, just those trace ids."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from rl_assets import store
    from rl_assets.ingest import ADDED_COLUMNS
    from rl_assets.schema import trace_schema

    if not store.exists(path):
        raise FileNotFoundError(f"trace table {path} does not exist (run the ingest first)")
    schema = trace_schema()
    cols = list(dict.fromkeys(columns))
    unknown = [c for c in cols if c not in schema.names]
    if unknown:
        raise KeyError(f"unknown trace columns {unknown} requested from {path}")
    want = pa.schema([schema.field(c) for c in cols])
    # pre_buffer (pyarrow's default) keeps every row group's bytes it has read until the reader is
    # closed: arrow memory then grows with the file (58 → 174 MB over an 8,000-row table).
    source = store.parquet_file(path, pre_buffer=False)
    present = set(source.schema_arrow.names)
    absent = [c for c in cols if c not in present and c in ADDED_COLUMNS]  # an older table: those are null
    missing = [c for c in cols if c not in present and c not in ADDED_COLUMNS]
    if missing:
        raise KeyError(f"trace table {path} lacks columns {missing}")
    read = [c for c in cols if c in present]
    if only is not None and "trace_id" not in read:
        read.append("trace_id")
    wanted_ids = pa.array(sorted(only), pa.string()) if only is not None else None
    for batch in source.iter_batches(batch_size=batch_rows, columns=read, use_threads=False):
        table = pa.Table.from_batches([batch])
        if wanted_ids is not None:
            table = table.filter(pc.is_in(table["trace_id"], value_set=wanted_ids))
            if table.num_rows == 0:
                continue
        for c in absent:
            table = table.append_column(schema.field(c), pa.nulls(table.num_rows, schema.field(c).type))
        table = table.select(want.names)
        yield table.cast(want) if table.schema != want else table


def iter_trace_rows(
    path, columns: Iterable[str], only: set[str] | None = None, batch_rows: int = BATCH_ROWS
) -> Iterator[list[dict]]:
    """The same batches as lists of row dicts (the shape the analyses take)."""
    for table in iter_trace_batches(path, columns, only, batch_rows):
        yield table.to_pylist()


def load_rows(path, columns: Iterable[str], with_conversation_for: set[str] | None = None) -> list[dict]:
    """Every row of a trace table as dicts, `columns` only; conversations (they are big) only for the
    trace ids in `with_conversation_for`, read a batch at a time."""
    from rl_assets.ingest import read_traces

    rows = read_traces(path, list(dict.fromkeys(columns))).to_pylist()
    if with_conversation_for:
        texts = {
            r["trace_id"]: r["conversation"]
            for batch in iter_trace_rows(path, ("trace_id", "conversation"), only=with_conversation_for)
            for r in batch
        }
        for row in rows:
            if row["trace_id"] in texts:
                row["conversation"] = texts[row["trace_id"]]
    return rows
