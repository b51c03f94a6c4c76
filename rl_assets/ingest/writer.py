"""Stream rows into a trace_schema() parquet file: record batches, temp file, atomic rename.

Files are created with the process umask (group-readable where the umask allows), not the
0600 of mkstemp: tables sit on shared volumes. A temp file is named
``.<table>.<host>.<pid>.<token>.tmp``; an ingest that was killed (kill -9, OOM) leaves one
behind, and the next write of that table removes it: a temp is stale when its writer's
process on this host is gone, or when it was not written to for an hour (a writer on another
host, or a temp of an older naming scheme).
"""

from __future__ import annotations

import os
from pathlib import Path

from rl_assets.fileutil import remove_stale_temps, temp_path
from rl_assets.schema import FEATURE_COLUMNS, TRACE_COLUMNS, trace_schema

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)

_DICT_COLUMNS = [name for name in TRACE_COLUMNS if name != "conversation"]
# No column statistics: no reader filters on them (read_traces reads whole columns), and the writer
# keeps every row group's until it closes -- ~20 KB per 256-row group for this schema, free text's
# min/max at KBs a value on top: peak memory grew with rows (bench/bench_eval_ingest.py).


class TraceWriter:
    """Context manager: rows go in via add(); on clean exit the temp file is renamed over
    out_path, on error it is deleted, so a reader never sees a half-written table.
    ``on_bad(exc, where)`` receives a row that arrow refuses (the batch is then written row by
    row, so one bad value never takes its neighbours with it)."""

    def __init__(self, out_path: Path, batch_rows: int = 256, on_bad=None) -> None:
        self.out_path = Path(out_path)
        self.batch_rows = max(1, int(batch_rows))
        self.on_bad = on_bad
        self.rows_written = 0
        self._buf: list[dict] = []
        self._where: list[str] = []
        self._sums = {c: 0.0 for c in FEATURE_COLUMNS}
        self._counts = {c: 0 for c in FEATURE_COLUMNS}

    def __enter__(self) -> TraceWriter:
        import pyarrow.parquet as pq

        self.out_path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(self.out_path)
        self._tmp = temp_path(self.out_path)
        # Conversation JSON is unique per row: dictionary-encoding it only burns CPU before
        # parquet falls back to plain pages (same bytes read back, ~20% less write time).
        # lz4, not zstd: these are local intermediates read back at once; lz4 writes ~0.2 s faster
        # per 200 MB of traces (bench/bench_ingest.py) for files about twice zstd's size.
        self._writer = pq.ParquetWriter(
            self._tmp,
            trace_schema(),
            compression="lz4",
            use_dictionary=_DICT_COLUMNS,  # type: ignore[arg-type]  # pyarrow takes a column list too; its stubs say bool
            write_statistics=False,
        )
        return self

    def add(self, row: dict, where: str = "") -> None:
        self._buf.append(row)
        self._where.append(where)
        if len(self._buf) >= self.batch_rows:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa

        if not self._buf:
            return
        rows, wheres = self._buf, self._where
        self._buf, self._where = [], []
        try:
            self._write(rows)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            if self.on_bad is None:
                raise
            for row, where in zip(rows, wheres):  # find the row(s) arrow refuses
                try:
                    self._write([row])
                except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
                    self.on_bad(exc, where)

    def _write(self, rows: list[dict]) -> None:
        import pyarrow as pa

        cols = {name: [r.get(name) for r in rows] for name in TRACE_COLUMNS}
        self._writer.write_batch(pa.RecordBatch.from_pydict(cols, schema=trace_schema()))
        self.rows_written += len(rows)
        for c in FEATURE_COLUMNS:
            for v in cols[c]:
                if v is not None:
                    self._sums[c] += v
                    self._counts[c] += 1

    def feature_means(self) -> dict[str, float | None]:
        return {c: (self._sums[c] / self._counts[c] if self._counts[c] else None) for c in FEATURE_COLUMNS}

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self.flush()
            self._writer.close()
            if exc_type is None:
                os.replace(self._tmp, self.out_path)
        finally:
            self._tmp.unlink(missing_ok=True)
