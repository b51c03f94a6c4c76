"""Exported trace rows (Harbor traces_utils / demo world): parquet, JSONL or JSON-array files.

Every shard is read on its own with only the columns we use that it actually has, so shards
with extra columns (trace_source, token ids) or differing types never clash (docs/original_pipeline.md W16).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .. import _json
from .._json import fingerprint
from ..jsonl import records
from ..plan import Candidate
from ..report import AccountingError, IngestError, SkipLog
from ..rows import DATE_NOTE, date_or_flag, episode_number, first_str, parse_result, to_int
from ..walk import read_bytes, split_suffix

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)

TASK_KEYS = ("task", "task_name", "task_id")
KEY_COLUMNS = (*TASK_KEYS, "trial_name", "episode", "date", "attempt")
ROW_COLUMNS = (
    *KEY_COLUMNS,
    "conversations",
    "messages",
    "conversation",
    "result",
    "reward",
    "error_type",
    "agent",
    "model",
    "benchmark",
    "task_family",
    "task_config",
    "task_index",
    "expected_answer",
    "question",
    "answer",
    "failure_mode",
    "failure_mode_analysis",
    "run_id",
)
NON_JSON_CONVERSATION = "conversation string is not JSON (kept as one assistant message)"
FINGERPRINT_COLUMNS = list(ROW_COLUMNS)  # not ROW_COLUMNS itself: the fingerprint pass leaves preloaded arrays
ROW_MARKERS = frozenset(("conversations", "messages", "conversation", *TASK_KEYS, "trial_name", "result"))


def looks_like_rows(data) -> bool:
    """A JSON array holding trace rows: empty, or any element a row-shaped object (a null or a
    header object first does not hide the rows after it; the odd elements become counted skips)."""
    return isinstance(data, list) and (
        not data or any(isinstance(r, dict) and not ROW_MARKERS.isdisjoint(r) for r in data)
    )


def _parquet_rows(path: Path, columns, codec, batch_rows: int = 256) -> Iterator[tuple[int, dict, str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pa.BufferReader(read_bytes(path)) if codec else path  # compressed: in memory
        pf = pq.ParquetFile(source)
        present = [c for c in columns if c in pf.schema_arrow.names]
        i = 0
        for batch in pf.iter_batches(batch_size=batch_rows, columns=present):
            for row in batch.to_pylist():
                yield i, row, ""
                i += 1
    except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError
        raise IngestError(f"{path}: unreadable parquet shard: {exc}") from exc
    if i != pf.metadata.num_rows:  # the file's own row count is the independent record
        raise AccountingError(f"{path}: read {i} rows, the parquet footer says {pf.metadata.num_rows}")


def parquet_columns(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).names
    except (OSError, ValueError):  # unreadable: the read itself fails naming the file
        return []


class ExportedRows:
    kind = "exported_rows"

    def __init__(self, files: list[Path], preloaded: dict[Path, list] | None = None) -> None:
        self.files = files
        self.preloaded = preloaded or {}

    def units(self) -> list:
        return self.files

    # -- raw row iteration -------------------------------------------------------------
    def _rows(self, path: Path, columns, notes: SkipLog | None = None) -> Iterator[tuple[int, dict | None, str]]:
        """(index, row or None when the record is unusable, skip reason); ``notes`` receives
        the JSONL reader's notes (the scan pass passes its ledger, later passes do not)."""
        suffix, codec = split_suffix(path)
        if suffix == ".parquet":
            yield from _parquet_rows(path, columns, codec)
        elif suffix == ".json":
            # the scan reuses the array parsed by spec sniffing; the load pass takes it (pop),
            # so no array outlives its last use
            data = self.preloaded.pop(path, None) if columns is ROW_COLUMNS else self.preloaded.get(path)
            if data is None:
                data = _load_json_array(path)
            for i, row in enumerate(data):
                yield i, row, ""
            del data
        else:  # .jsonl / .ndjson
            yield from records(path, notes)

    def scan(self, path: Path, skips: SkipLog) -> Iterator[Candidate]:
        if split_suffix(path) == (".parquet", None):  # the scan reads key columns only: name the file's own
            skips.saw_keys(path, dict.fromkeys(parquet_columns(path)))
        for i, row, bad in self._rows(path, KEY_COLUMNS, skips):
            skips.find()  # every record the reader found, before any rule looks at it
            where = f"{path} row {i + 1}"
            if bad:
                skips.skip(bad, where)
                continue
            if not isinstance(row, dict):
                skips.skip("row is not an object", where)
                continue
            skips.saw_keys(path, row)
            task = first_str(row, *TASK_KEYS)
            if task is None:
                skips.skip("missing task id", where)
                continue
            date, bad_date = date_or_flag(row.get("date"))  # noted only if the row is kept (plan)
            yield Candidate(
                path,
                i,
                where,
                task,
                first_str(row, "trial_name"),
                episode_number(row.get("episode"), skips),
                date,
                to_int(row.get("attempt"), skips),
                notes=(DATE_NOTE,) if bad_date else (),
            )

    def fingerprints(self, path: Path, wanted: set[int]) -> dict[int, str]:
        """Content hashes of the rows at ``wanted`` (only rows whose trial key repeats)."""
        out, last = {}, max(wanted)
        for i, row, _bad in self._rows(path, FINGERPRINT_COLUMNS):
            if i > last:
                break
            if i in wanted:
                out[i] = fingerprint(row)
        return out

    def load(self, path: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        last = max(wanted)
        for i, row, _bad in self._rows(path, ROW_COLUMNS):
            if i > last:
                return
            cand = wanted.get(i)
            if cand is None:
                continue
            try:
                built = build_row(row, cand, skips)
            except Exception as exc:  # an unexpected shape: this row is skipped, named; the file goes on
                skips.bad_row(exc, cand.where)
                continue
            if built is not None:
                yield cand, built


def build_row(row: dict, cand: Candidate, skips: SkipLog) -> dict | None:
    messages = row.get("conversations")
    if messages is None:
        messages = row.get("messages")
    if messages is None:
        messages = row.get("conversation")
    if isinstance(messages, str):  # some exports store the conversation as a JSON string
        try:
            messages = _json.loads(messages)
        except ValueError:
            skips.note(NON_JSON_CONVERSATION)
            messages = [{"role": "assistant", "content": messages}]
    if messages is None:
        messages = []
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        skips.skip("conversation is not a list of messages", cand.where)
        return None
    reward, err = parse_result(row.get("result"), skips)
    if reward is None and err is None:
        reward, _ = parse_result(row.get("reward"), skips)
        err = first_str(row, "error_type")
    config = row.get("task_config")
    fm = row.get("failure_mode", row.get("failure_mode_analysis"))
    if isinstance(fm, dict):
        fm = fm.get("mode") or fm.get("category")
    return {
        "_messages": messages,
        "reward": reward,
        "error_type": err,
        "agent": first_str(row, "agent"),
        "model": first_str(row, "model"),
        "benchmark": first_str(row, "benchmark"),
        "task_family": first_str(row, "task_family"),
        "task_index": to_int(row.get("task_index"), skips),
        "task_config": config if config is None or isinstance(config, str) else _json.dumps(config),
        "expected_answer": _opt_str(row.get("expected_answer")),
        "question": _opt_str(row.get("question")),
        "answer": _opt_str(row.get("answer")),
        "failure_mode": fm if isinstance(fm, str) and fm else None,
    }


def _opt_str(value) -> str | None:
    return None if value is None else value if isinstance(value, str) else _json.dumps(value)


def _load_json_array(path: Path) -> list:
    try:
        data = _json.loads(read_bytes(path))
    except (ValueError, OSError) as exc:
        raise IngestError(f"{path}: not valid JSON: {exc}") from exc
    if not looks_like_rows(data):
        raise IngestError(f"{path}: expected a JSON array of exported trace rows")
    return data
