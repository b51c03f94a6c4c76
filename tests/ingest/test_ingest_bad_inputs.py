"""One test per generated bad input: the exact exception or the exact ledger.

For every input that ingests, the conservation law is checked from the outside too: units found =
rows written + skipped + merged, every trace_id is distinct, every skip example names its file
and row, and the asset check's "lost" count is exactly the skips that were not by design.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rl_assets.ingest import ingest_source, read_traces
from support import (
    bad_inputs_folders,  # noqa: F401  (registers its cases)
    bad_inputs_harbor,  # noqa: F401
    bad_inputs_rows,  # noqa: F401
)
from support.bad_inputs import CASES  # tests/ is on sys.path (rootdir-less pytest import mode)


def test_corpus_is_large_enough():
    assert len(CASES) >= 80
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
        assert not list(out.parent.glob(".*.tmp")) if out.parent.exists() else True
        return
    _, rows, skipped, *notes = case.expect
    extra = case.extra
    report = ingest_source(spec, out, hub=None)
    acc = report.accounting
    assert report.skipped == skipped
    assert report.notes == (notes[0] if notes else {})
    assert report.merged == extra.get("merged", {})
    assert acc["not_read"] == extra.get("not_read", {})
    assert acc["inputs_merged"] == extra.get("inputs_merged", {})
    table = read_traces(out)
    assert report.rows_written == rows == table.num_rows
    # the law, recomputed here from the report
    assert report.rows_read == acc["found"] == rows + sum(skipped.values()) + sum(report.merged.values())
    assert acc["inputs_found"] == acc["inputs_read"] + sum(acc["not_read"].values()) + sum(
        acc["inputs_merged"].values()
    )
    assert acc["lost"] == extra.get("lost", sum(skipped.values()))
    ids = table.column("trace_id").to_pylist()
    assert len(set(ids)) == len(ids)  # never two rows with one trace_id
    if "task_ids" in extra:
        assert sorted(table.column("task_id").to_pylist()) == extra["task_ids"]
    lost_skips = sum(n for r, n in skipped.items() if r not in acc["by_design"])
    assert len(report.skip_examples) == min(5, lost_skips)
    if "where" in extra:
        assert any(extra["where"] in e for e in report.skip_examples), report.skip_examples
    exported = Path(spec).suffix in (".jsonl", ".parquet") or any(Path(spec).rglob("*.parquet"))
    for example in report.skip_examples:  # "<file> <row> [(<exception>)]: <reason>"
        reason = next((r for r in skipped if example.endswith(f": {r}")), None)
        assert reason is not None, example  # states the skip reason
        where = re.sub(r" \(.*\)$", "", example[: -len(f": {reason}")])
        assert str(tmp_path) in where, example  # names the file
        # ... and the row: row N of exported rows; result/completion of reasoning-gym; the trial's
        # result.json, trajectory file (+ step) or trial folder for Harbor / ATIF (one row per file)
        assert re.search(r" row \d+$" if exported else r" row \d+| result \d+| step \d+|\.json\b|__\w+$", where), (
            example
        )
