"""One test per generated bad input: the exact exception or the exact skip ledger."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rl_assets.ingest import ingest_source, read_traces

from bad_inputs import CASES  # tests/ is on sys.path (rootdir-less pytest import mode)


def test_corpus_is_large_enough():
    assert len(CASES) >= 25
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case, tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    spec = case.build(tmp_path)
    out = tmp_path / "out" / "traces.parquet"
    if case.expect[0] == "error":
        _, exc_type, fragment = case.expect
        with pytest.raises(exc_type) as info:
            ingest_source(spec, out, hub=None)
        assert fragment in str(info.value)
        assert not out.exists()  # never a half-written table
        assert not list(out.parent.glob("*.tmp")) if out.parent.exists() else True
        return
    _, rows, skipped, *notes = case.expect
    report = ingest_source(spec, out, hub=None)
    assert report.skipped == skipped
    assert report.notes == (notes[0] if notes else {})
    assert report.rows_written == rows == read_traces(out).num_rows
    reduced = report.notes.get("earlier episode of the same trial (kept the last)", 0)
    assert report.rows_read == rows + sum(skipped.values()) + reduced
    assert len(report.skip_examples) == min(5, sum(skipped.values()))
    exported = Path(spec).suffix in (".jsonl", ".parquet") or any(Path(spec).rglob("*.parquet"))
    for example in report.skip_examples:  # "<file> <row>: <reason>"
        reason = next((r for r in skipped if example.endswith(f": {r}")), None)
        assert reason is not None, example  # states the skip reason
        where = example[: -len(f": {reason}")]
        assert str(tmp_path) in where, example  # names the file
        # ... and the row: row N of exported rows; result/completion of reasoning-gym; the trial's
        # result.json or the trajectory file (+ step) for Harbor / ATIF (one row per file)
        assert re.search(r" row \d+$" if exported else r" row \d+| result \d+| step \d+|\.json\b", where), example
