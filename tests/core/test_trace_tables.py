"""A source is ingested once per revision and knobs; unchanged inputs reuse the table."""

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rl_assets.ingest as ingest
from resources.hub import LocalHub
from rl_assets.support.source_fingerprint import local_fingerprint
from rl_assets.support.trace_tables import ingest_once, stamp_path


@pytest.fixture
def hub(tmp_path):
    data = tmp_path / "hub" / "datasets" / "org" / "evals" / "data"
    data.mkdir(parents=True)
    rows = [
        {
            "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
            "task": f"t{i}",
            "trial_name": f"t{i}__x",
            "result": "1.0",
        }
        for i in range(5)
    ]
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
        json.dumps({"conversations": [], "task": "t9", "trial_name": "t9__x", "result": "0.0"}) + "\n"
    )
    assert ingest_once(hub, "org/evals", table, benchmark="b")["rows"] == 6 and len(calls) == 4


def _row(task: str, result: str) -> str:
    return json.dumps({"conversations": [], "task": task, "trial_name": f"{task}__1", "result": result}) + "\n"


def test_an_unchanged_local_file_is_not_ingested_again(tmp_path, calls):
    src = tmp_path / "rows.jsonl"
    src.write_text(_row("t", "0.0"))
    table = tmp_path / "local.parquet"
    first, again = ingest_once(None, str(src), table), ingest_once(None, str(src), table)
    assert (first["reused"], again["reused"], len(calls)) == (False, True, 1) and stamp_path(table).exists()
    src.write_text(_row("t", "0.0") + _row("u", "1.0"))  # the file changed: read again
    assert ingest_once(None, str(src), table)["rows"] == 2 and len(calls) == 2
    # a same-size rewrite that keeps the mtime (a copy with preserved times) is seen by the sampled hash
    st = src.stat()
    src.write_text(_row("t", "1.0") + _row("u", "0.0"))
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert src.stat().st_size == st.st_size
    assert ingest_once(None, str(src), table)["reused"] is False and len(calls) == 3


def test_a_local_folder_is_fingerprinted_by_its_files(tmp_path, calls):
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / "a.jsonl").write_text(_row("t", "0.0"))
    table = tmp_path / "folder.parquet"
    ingest_once(None, str(folder), table)
    (folder / ".cache").mkdir()  # hidden files and folders are not data
    (folder / ".cache" / "x").write_text("noise")
    assert ingest_once(None, str(folder), table)["reused"] is True and len(calls) == 1
    (folder / "b.jsonl").write_text(_row("u", "1.0"))
    assert ingest_once(None, str(folder), table)["rows"] == 2 and len(calls) == 2
    assert local_fingerprint(str(folder)) != local_fingerprint(str(folder / "a.jsonl"))
    with pytest.raises(FileNotFoundError, match="missing"):
        local_fingerprint(str(tmp_path / "missing"))
