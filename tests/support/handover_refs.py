"""Hand-over values for stub upstreams: a TraceTableRef naming a trace table a test wrote."""

import pyarrow.parquet as pq

from rl_assets.values.handover import TraceTableRef


def trace_ref(path, source: str = "local/test", rows: int | None = None, **fields) -> TraceTableRef:
    """The reference baseline_traces/post_rl_traces would hand over for the table at `path`
    (its row count read from the file unless given)."""
    if rows is None:
        rows = pq.ParquetFile(str(path)).metadata.num_rows
    return TraceTableRef(path=str(path), rows=rows, source=source, **fields)
