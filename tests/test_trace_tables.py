"""A source is ingested once per revision and knobs; unchanged inputs reuse the table."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rl_assets.ingest as ingest
from resources.hub import LocalHub
from rl_assets.trace_tables import ingest_once, stamp_path


@pytest.fixture
def hub(tmp_path):
    data = tmp_path / "hub" / "datasets" / "org" / "evals" / "data"
    data.mkdir(parents=True)
    rows = [{"conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
             "task": f"t{i}", "trial_name": f"t{i}__x", "result": "1.0"} for i in range(5)]
    pq.write_table(pa.Table.from_pylist(rows), data / "train-00000-of-00001.parquet")
    return LocalHub(tmp_path / "hub")


@pytest.fixture
def calls(monkeypatch):
    seen = []
    real = ingest.ingest_source

    def counting(spec, out, **kw):
        seen.append((spec, kw.get("max_rows")))
        return real(spec, out, **kw)

    monkeypatch.setattr(ingest, "ingest_source", counting)
    return seen


def test_unchanged_source_is_not_ingested_twice(hub, calls, tmp_path):
    table = tmp_path / "t.parquet"
    first = ingest_once(hub, "org/evals", table, benchmark="b")
    again = ingest_once(hub, "org/evals", table, benchmark="b")
    assert (first["reused"], again["reused"]) == (False, True) and len(calls) == 1
    assert again["rows"] == first["rows"] == 5 and again["metadata"] == first["metadata"]
    # a different row cap is a different table (it replaces this one, so the full one is rebuilt)
    assert ingest_once(hub, "org/evals", table, benchmark="b", max_rows=2)["rows"] == 2
    assert ingest_once(hub, "org/evals", table, benchmark="b")["reused"] is False and len(calls) == 3
    # a new revision of the dataset is a different table too
    (hub.root / "datasets/org/evals/data/extra.jsonl").write_text(
        json.dumps({"conversations": [], "task": "t9", "trial_name": "t9__x", "result": "0.0"}) + "\n")
    assert ingest_once(hub, "org/evals", table, benchmark="b")["rows"] == 6 and len(calls) == 4


def test_an_identical_table_elsewhere_is_read_in_place(hub, calls, tmp_path):
    partition_table = tmp_path / "baseline_traces" / "org--m.parquet"
    ingest_once(hub, "org/evals", partition_table, benchmark="b")
    other = ingest_once(hub, "org/evals", tmp_path / "cmp.parquet", benchmark="b", reuse=(partition_table,))
    assert other["path"] == str(partition_table) and other["reused"] and len(calls) == 1
    # a partition table built for another benchmark is not borrowed
    assert ingest_once(hub, "org/evals", tmp_path / "cmp.parquet", benchmark="other", reuse=(partition_table,))["reused"] is False


def test_local_sources_are_reused_until_their_content_changes(tmp_path, calls):
    src = tmp_path / "rows.jsonl"
    row = {"conversations": [], "task": "t", "trial_name": "t__1", "result": "0.0"}
    src.write_text(json.dumps(row) + "\n")
    table = tmp_path / "local.parquet"
    ingest_once(None, str(src), table)
    assert ingest_once(None, str(src), table)["reused"] and len(calls) == 1 and stamp_path(table).exists()
    src.write_text(json.dumps(row) + "\n" + json.dumps({**row, "trial_name": "t__2"}) + "\n")
    assert ingest_once(None, str(src), table)["rows"] == 2 and len(calls) == 2
