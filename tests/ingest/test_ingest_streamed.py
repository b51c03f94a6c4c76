"""The streamed ingest path (rl_assets/ingest/__init__.py, _plan_units): an adapter that can stream
its rows is planned with 8 bytes a row and, when planning would change nothing, read again without
holding a candidate per row. These tests pin that the streamed table is the planned one, that any
source planning does change falls back, and that a duplicate it could not foresee still fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rl_assets.ingest as ingest
from rl_assets.ingest import AccountingError, ingest_source, read_traces
from rl_assets.ingest.formats.lighteval import LightevalDetails
from rl_assets.ingest.formats.lm_eval import LmEvalSamples
from support.eval_toolkits import lm_eval_row, lm_eval_run

REAL = Path(__file__).parents[1] / "fixtures" / "realdata"


def _planned(monkeypatch):
    """The same ingest with the streamed path switched off (the adapter seen without ``stream``)."""
    monkeypatch.setattr(ingest, "_plan_units", _without_stream(ingest._plan_units))


def _without_stream(real):
    class Plain:
        def __init__(self, adapter):
            self._a = adapter

        def __getattr__(self, name):
            if name == "stream":
                raise AttributeError(name)
            return getattr(self._a, name)

    return lambda adapter, *args: real(Plain(adapter), *args)


def _table(spec, out):
    report = ingest_source(str(spec), out, hub=None)
    rows = sorted(read_traces(out).to_pylist(), key=lambda r: r["trace_id"])
    return report, rows


def _edge_run(tmp_path) -> Path:
    """Both filters per document, a bad line, a row without doc_id, unicode, an empty extraction."""
    rows = []
    for i, (q, a, f) in enumerate([("2+2?", "4", "4"), ("Ünïcode ½?", "0.5", ""), ("3·3?", "9", "8")]):
        for filt in ("strict-match", "flexible-extract"):
            rows.append(lm_eval_row(i, q, a, f, float(f == a), filt=filt))
    path = lm_eval_run(tmp_path / "run", "gsm8k", rows)
    no_id = lm_eval_row(9, "x", "1", "1", 1.0)
    del no_id["doc_id"]
    with open(path, "a") as fh:
        fh.write(json.dumps(no_id) + "\n{not json\n")
    return path.parent


@pytest.mark.parametrize(
    "source",
    [
        REAL / "lm_eval_masakhaner_luo" / "zero_shot",
        REAL / "lighteval_gpqa_olmo" / "eight_samples" / "details",
        "edge",
    ],
)
def test_streamed_table_and_ledger_equal_the_planned_ones(tmp_path, monkeypatch, source):
    if source == "edge":
        source = _edge_run(tmp_path)
    streamed_report, streamed = _table(source, tmp_path / "streamed.parquet")
    _planned(monkeypatch)
    planned_report, planned = _table(source, tmp_path / "planned.parquet")
    assert streamed == planned and len(streamed) > 0
    for field in ("rows_read", "rows_written", "skipped", "notes", "merged", "toolkit"):
        assert getattr(streamed_report, field) == getattr(planned_report, field), field
    assert streamed_report.skip_examples == planned_report.skip_examples


def test_the_same_documents_in_two_files_are_planned_as_two_attempts(tmp_path):
    """Two runs of one task in one folder: each document twice, so planning numbers attempts 0 and 1
    -- the streamed path is not taken (it would call both attempt 0)."""
    root = tmp_path / "runs"
    for k, time in enumerate(("2026-01-01T00-00-00.000001", "2026-01-02T00-00-00.000001")):
        lm_eval_run(root / f"run{k}", "gsm8k", [lm_eval_row(i, f"q{i}", "1", "1", 1.0) for i in range(3)], time=time)
    _, rows = _table(root, tmp_path / "o.parquet")
    by_task: dict[str, list[int]] = {}
    for r in rows:
        by_task.setdefault(r["task_id"], []).append(r["attempt"])
    assert {t: sorted(a) for t, a in by_task.items()} == {f"gsm8k/{i}": [0, 1] for i in range(3)}


def test_max_rows_below_the_rows_found_is_planned_and_capped(tmp_path):
    source = lm_eval_run(tmp_path / "run", "gsm8k", [lm_eval_row(i, f"q{i}", "1", "1", 1.0) for i in range(5)])
    report = ingest_source(str(source.parent), tmp_path / "o.parquet", hub=None, max_rows=2)
    assert report.rows_written == 2 and report.rows_read == 5


def test_a_duplicate_the_digests_missed_still_fails_before_publishing(tmp_path, monkeypatch):
    """If two task ids ever shared a digest check's blind spot, the streamed path would write one
    trace_id twice: the end-of-file check fails the ingest and nothing is published."""
    root = tmp_path / "runs"
    for k, time in enumerate(("2026-01-01T00-00-00.000001", "2026-01-02T00-00-00.000001")):
        lm_eval_run(root / f"run{k}", "gsm8k", [lm_eval_row(0, "q", "1", "1", 1.0)], time=time)
    counter = iter(range(10**6))
    monkeypatch.setattr(ingest, "digest", lambda text: next(counter))  # every task id "distinct"
    monkeypatch.setattr(LmEvalSamples, "_walk", _same_trial(LmEvalSamples._walk))
    out = tmp_path / "o.parquet"
    with pytest.raises(AccountingError, match="written twice"):
        ingest_source(str(root), out, hub=None)
    assert not out.exists()


def _same_trial(real):
    """Both files' rows named as one trial (so their trace ids coincide once both are attempt 0)."""

    def walk(self, path, skips):
        for cand, rec in real(self, path, skips):
            cand.trial_name = "one-trial"
            yield cand, rec

    return walk


def test_the_edge_run_takes_the_streamed_path(tmp_path, monkeypatch):
    """The equality test above compares something: the edge run really is streamed (no candidates
    loaded through ``load``)."""
    monkeypatch.setattr(LmEvalSamples, "load", lambda *a: pytest.fail("planned path taken"))
    monkeypatch.setattr(LightevalDetails, "load", lambda *a: pytest.fail("planned path taken"))
    report = ingest_source(str(_edge_run(tmp_path)), tmp_path / "o.parquet", hub=None)
    assert (report.rows_written, report.rows_read) == (3, 8)  # 3 documents; 3 other-filter rows, no id, bad line
    report = ingest_source(
        str(REAL / "lighteval_gpqa_olmo" / "one_sample" / "details"), tmp_path / "l.parquet", hub=None
    )
    assert report.rows_written == 198
