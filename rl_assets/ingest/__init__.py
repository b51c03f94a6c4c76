"""Ingest (the source layer's readers): every trace source -> one normalized parquet table
(rl_assets.schema.trace_schema()), one reader per format in ``formats/``; training logs of any
trainer in ``training_logs/`` (SkyRL's reader in ``skyrl_log/``), the predictions file in
``formats/predictions``.

    report = ingest_source("hf:org/traces", out_path, hub=hub_backend)
    table = read_traces(out_path, columns=LIGHT_COLUMNS)

See docs/ingest.md for the supported specs, column meanings and the bad-input policy.
"""

from __future__ import annotations

import sys
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rl_assets.schema import TRACE_COLUMNS, trace_schema
from rl_assets.values.task_identity import row_key

from . import _json
from .features import featurize
from .plan import StreamingAdapter, Uncounted, digest, plan, simple
from .report import AccountingError, IngestError, IngestReport, SkipLog, accounting_of
from .rows import finish_row, trace_id
from .spec import resolve
from .tokens import get_counter
from .toolkit_metrics import Tally
from .understood import require_understood
from .writer import TraceWriter

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["AccountingError", "IngestError", "IngestReport", "ingest_source", "read_traces"]

# Columns after `conversation` in the trace schema (phase timings, token counts, cost, n_subagents)
# are optional on read: a stored table without them reads back with these columns null instead
# of failing, so tables written by an older schema stay usable.
ADDED_COLUMNS = TRACE_COLUMNS[TRACE_COLUMNS.index("conversation") + 1 :]


# Rows held in Python (parsed messages, features, conversation JSON) before they go to parquet as
# one row group. 64 rather than 256: on long agent traces (~96 KB a row) an ingest's peak falls by
# ~45 MB at the same speed (bench/RESULTS.md, "A lighter run"), which matters when the eval pair's
# two sides are ingested at once (rl_assets/assets/traces.py).
BATCH_ROWS = 64

UNITS = {
    "exported_rows": "rows",
    "harbor": "trials",
    "reasoning_gym": "completions",
    "atif": "trajectories",
    "wandb_validation": "validation samples",
    "qwen_math_eval": "sampled answers",
    "lm_eval_samples": "samples",
    "inspect_log": "samples",
    "lighteval_details": "details rows",
}


def ingest_source(
    spec: str,
    out_path: Path,
    *,
    hub,
    max_rows: int | None = None,
    benchmark: str | None = None,
    side: str = "",
    tokenizer: str | None = None,
    batch_rows: int = BATCH_ROWS,
    keep_all_episodes: bool = False,
) -> IngestReport:
    """Read one trace source and write it as trace_schema() parquet at out_path (atomically).

    ``benchmark`` fills rows whose source does not name one; ``side`` (e.g. "base"/"rl") is
    carried into the report only; ``keep_all_episodes`` keeps every exported episode row
    instead of the last one per trial. Raises IngestError (naming the file) or
    FileNotFoundError for input problems; the hub backend's own errors pass through."""
    try:
        return _ingest(spec, Path(out_path), hub, max_rows, benchmark, side, tokenizer, batch_rows, keep_all_episodes)
    except _NAMED:
        raise
    except Exception as exc:  # RecursionError, MemoryError, ... never escape anonymously
        if _is_hub_error(exc):
            raise
        raise IngestError(f"{spec}: {type(exc).__name__}: {exc}") from exc


def warm_imports() -> None:
    """Import what an ingest imports on its first rows (pyarrow's writer and compute, pandas, which
    pyarrow loads on its first array, numpy, the store's path layer): ~0.5 s once. Called before
    the eval pair's sides are ingested side by side (rl_assets/assets/traces.py), so a forked child
    starts with them instead of importing them again."""
    import fsspec  # noqa: F401
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow.compute  # noqa: F401
    import pyarrow.pandas_compat  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    import upath  # noqa: F401


def release_unused_memory() -> None:
    """After an ingest: hand the memory it freed back to the system (pyarrow's pool, then glibc's
    malloc heap), so the run's later steps start from a smaller footprint: after an ingest of long
    traces ~30 MB sits freed but held. A no-op where there is no glibc."""
    import ctypes

    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        try:  # the process's own symbols, as process_guard reaches prctl: no library search
            ctypes.CDLL(None).malloc_trim(0)
        except (OSError, AttributeError):  # musl has no malloc_trim
            pass


def _is_hub_error(exc: Exception) -> bool:
    """A hub backend's own error (it names the repo; assets map it to a Failure). resources.hub
    is not imported here: it pulls in dagster, seconds of start-up a bare ingest does not need."""
    hub = sys.modules.get("resources.hub")
    return hub is not None and isinstance(exc, hub.HubError)


def _ingest(spec, out_path: Path, hub, max_rows, benchmark, side, tokenizer, batch_rows, keep_all_episodes):
    token_label, counter = get_counter(tokenizer)
    skips = SkipLog()
    src = resolve(str(spec), hub, skips)
    adapter = src.adapter
    units = adapter.units()
    streamed, by_unit = _plan_units(adapter, units, skips, max_rows, keep_all_episodes)

    sources, ids, streamed_ids = set(), set(), array("Q")
    tally = Tally()
    with TraceWriter(out_path, batch_rows, on_bad=skips.bad_row) as writer:
        for unit in units:
            if streamed:
                loading = cast(StreamingAdapter, adapter).stream(unit, skips)  # _plan_units checked it has one
            else:
                wanted = by_unit.pop(id(unit), None)  # dropped once loaded: memory goes down unit by unit
                if not wanted:
                    continue
                loading = adapter.load(unit, wanted, skips)
            while True:
                try:
                    item = next(loading, None)
                except _NAMED:
                    raise
                except Exception as exc:  # the adapter failed outside one row: the file fails
                    raise _named(exc, _unit_name(unit)) from exc
                if item is None:
                    break
                cand, row = item
                if streamed:
                    cand.attempt = 0  # what plan() gives a task's only candidate
                try:
                    source = _complete(row, cand, src, counter, token_label, benchmark)
                    finish_row(row)
                except Exception as exc:  # this row only (a value no rule anticipated)
                    skips.bad_row(exc, cand.where)
                    continue
                written = int(row["trace_id"], 16)  # 16 hex digits (rows.trace_id): as an int, half the memory
                if streamed:
                    streamed_ids.append(written)  # checked once at the end: 8 bytes a row
                elif written in ids:
                    raise AccountingError(f"{cand.where}: trace_id {row['trace_id']} written twice (dedup bug)")
                else:
                    ids.add(written)
                sources.add(source)
                tally.add(row)
                writer.add(row, cand.where)
        writer.flush()
        _require_distinct(streamed_ids, src.ref)
        skips.balance(writer.rows_written, src.ref)  # before the rename: a table that loses rows is never published
        require_understood(skips, writer.rows_written, src.ref, UNITS.get(src.kind, "rows"))  # rows, none understood
        agreement = adapter.toolkit_agreement(tally) if hasattr(adapter, "toolkit_agreement") else []
    return IngestReport(
        rows_written=writer.rows_written,
        rows_read=skips.found,
        skipped=dict(skips.counts),
        skip_examples=list(skips.examples),
        source_kind=src.kind,
        source_ref=src.ref,
        source_revision=src.revision,
        token_source=_label(sources, token_label),
        feature_summary=writer.feature_means(),
        out_path=str(out_path),
        side=side,
        notes=dict(skips.notes),
        merged=dict(skips.merged),
        accounting={**accounting_of(skips, writer.rows_written, UNITS.get(src.kind, "rows")), "toolkit": agreement},
        toolkit=agreement,
    )


def _plan_units(adapter, units, skips: SkipLog, max_rows, keep_all_episodes) -> tuple[bool, dict]:
    """Pass 1 (every unit scanned, counted on ``skips``) and the plan: (streamed, kept candidates by
    unit). An adapter that can ``stream`` its rows is checked first with 8 bytes a row (a digest of
    each task id): when every candidate is plain (simple()) and every task appears once, plan()
    would change nothing but number each attempt 0, so nothing is kept and the rows are streamed in
    pass 2 -- memory stays flat however many rows (bench/bench_eval_ingest.py). Otherwise the
    candidates are scanned again, uncounted, and planned as any source's."""
    if hasattr(adapter, "stream"):
        digests, plain = array("Q"), True
        for unit in units:
            for c in _scan(adapter, unit, skips):
                digests.append(digest(c.task_id))
                plain = plain and simple(c)
        if plain and (max_rows is None or len(digests) <= max(0, int(max_rows))) and _distinct(digests):
            return True, {}
        cands = [c for unit in units for c in _scan(adapter, unit, Uncounted())]
    else:
        cands = [c for unit in units for c in _scan(adapter, unit, skips)]
    kept = plan(
        cands,
        skips,
        keep_all_episodes=keep_all_episodes,
        max_rows=max_rows,
        fingerprints=lambda group: _fingerprints(adapter, group),
    )
    by_unit: dict[int, dict] = {}
    for c in kept:
        by_unit.setdefault(id(c.unit), {})[c.index] = c
    return False, by_unit


def _scan(adapter, unit, skips):
    try:
        yield from adapter.scan(unit, skips)
    except _NAMED:
        raise
    except Exception as exc:
        raise _named(exc, _unit_name(unit)) from exc


def _distinct(values: array) -> bool:
    import numpy as np

    return int(np.unique(np.frombuffer(values, dtype=np.uint64)).size) == len(values) if values else True


def _require_distinct(trace_ids: array, ref: str) -> None:
    """The streamed path's check that no trace_id was written twice (the planned path checks row by row)."""
    if _distinct(trace_ids):
        return
    import numpy as np

    values, counts = np.unique(np.frombuffer(trace_ids, dtype=np.uint64), return_counts=True)
    raise AccountingError(f"{ref}: trace_id {int(values[counts > 1][0]):016x} written twice (dedup bug)")


def _fingerprints(adapter, cands) -> dict[int, str]:
    """Content hashes of candidates whose trial key repeats, read unit by unit."""
    read = getattr(adapter, "fingerprints", None)
    if read is None:
        return {}
    by_unit: dict[int, tuple] = {}
    for c in cands:
        by_unit.setdefault(id(c.unit), (c.unit, []))[1].append(c)
    out = {}
    for unit, group in by_unit.values():
        try:
            hashes = read(unit, {c.index for c in group})
        except _NAMED:
            raise
        except Exception as exc:
            raise _named(exc, _unit_name(unit)) from exc
        out.update({id(c): hashes[c.index] for c in group if c.index in hashes})
    return out


def _complete(row: dict, cand, src, counter, token_label: str, benchmark: str | None) -> str:
    """Add identity, features and conversation JSON to an adapter row; returns token_source."""
    messages = row.pop("_messages")
    recorded = row.pop("_recorded_assistant_tokens", None)
    row.update(featurize(messages, counter))
    source = token_label
    if recorded is not None:  # the model's own completion token counts beat any re-tokenizing
        row["assistant_tokens"] = float(recorded)
        row["mean_assistant_tokens"] = recorded / row["n_turns"] if row["n_turns"] else None
        source = "recorded"
    row["token_source"] = source
    row["conversation"] = _json.dumps(messages)
    row["task_id"] = cand.task_id
    row["source_kind"] = src.kind  # before the key: eval toolkits' rows are keyed by content
    row["task_key"], row["task_key_source"] = row_key(row)  # one pairing key for every analysis
    row["trial_name"] = cand.trial_name
    row["attempt"] = cand.attempt
    row["episode"] = cand.episode
    row["date"] = cand.date
    row["source_ref"] = src.ref
    row["benchmark"] = row.get("benchmark") or benchmark or getattr(src.adapter, "default_benchmark", None)
    key = f"{cand.task_id}|{cand.trial_name}|{cand.attempt}|{cand.episode}"
    row["trace_id"] = trace_id(src.ref, f"{key}|dup{cand.dup}" if cand.dup else key)
    return source


def _unit_name(unit) -> str:
    """The file/folder an adapter unit reads (units are paths or (path, data) pairs)."""
    return str(unit[0] if isinstance(unit, tuple) else unit)


_NAMED = (IngestError, FileNotFoundError)  # these already name their input


def _named(exc: Exception, where: str) -> IngestError:
    """An unexpected error (input of a shape no rule anticipated) as an IngestError naming
    the file and row."""
    return IngestError(f"{where}: {type(exc).__name__}: {exc}")


def _label(sources: set[str], default: str) -> str:
    if not sources:
        return default
    return sources.pop() if len(sources) == 1 else "mixed:" + ",".join(sorted(sources))


def read_traces(path, columns=None) -> pa.Table:
    """The one reader every analysis uses: a trace_schema() table (optionally a column subset).
    `path` is a table's location in the store: a local path or a URL (rl_assets/store.py)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rl_assets import store

    if not store.exists(path):
        raise FileNotFoundError(f"trace table {path} does not exist (run the ingest first)")
    schema = trace_schema()
    cols = list(columns) if columns is not None else None
    unknown = [c for c in cols or () if c not in schema.names]
    if unknown:
        raise KeyError(f"unknown trace columns {unknown} requested from {path}")
    want = schema if cols is None else pa.schema([schema.field(c) for c in cols])
    where, fs = store.arrow_source(path)
    absent = []
    if fs is not None or Path(where).is_file():
        names = set(pq.read_schema(where, filesystem=fs).names)
        absent = [c for c in want.names if c in ADDED_COLUMNS and c not in names]
    if absent:  # an older table: read what it has, the newer columns are null
        table = pq.read_table(where, columns=[c for c in want.names if c not in absent], filesystem=fs)
        for c in absent:
            table = table.append_column(schema.field(c), pa.nulls(table.num_rows, schema.field(c).type))
        table = table.select(want.names)
    else:
        table = pq.read_table(where, columns=cols, filesystem=fs)
    return table.cast(want) if table.schema != want else table
