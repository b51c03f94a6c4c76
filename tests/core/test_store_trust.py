"""The store does not trust its files (issue 25 item 10): a stored trace table is reused only while it is
the file its stamp vouches for (sha256, size, rows), and no stored value or LATEST pointer sends a read
outside the storage root."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rl_assets.ingest as ingest
from resources.io_manager import RlDeltaIOManager, load_stored, read_value
from rl_assets import store
from rl_assets.partitions import slug
from rl_assets.support.failure_modes_store import latest_table
from rl_assets.support.trace_tables import ingest_once

MODEL = "org/m-8B"


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "rows.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {"conversations": [], "task": f"t{i}", "trial_name": f"t{i}__1", "result": "1.0" if i % 2 else "0.0"}
            )
            + "\n"
            for i in range(6)
        )
    )
    return src


@pytest.fixture
def calls(monkeypatch):
    seen = []
    real = ingest.ingest_source
    monkeypatch.setattr(ingest, "ingest_source", lambda spec, out, **kw: seen.append(spec) or real(spec, out, **kw))
    return seen


def test_a_table_replaced_by_a_valid_subset_is_rebuilt_not_reused(rldelta_home, source, calls):
    table = rldelta_home / "t.parquet"
    assert ingest_once(None, str(source), table)["rows"] == 6
    pq.write_table(pq.read_table(table).slice(0, 2), table)  # valid parquet, fewer rows, same stamp
    again = ingest_once(None, str(source), table)
    assert (again["reused"], again["rows"], pq.read_table(table).num_rows, len(calls)) == (False, 6, 6, 2)
    assert ingest_once(None, str(source), table)["reused"] is True and len(calls) == 2


def test_a_truncated_table_is_rebuilt_instead_of_failing_every_later_run(rldelta_home, source, calls):
    table = rldelta_home / "t.parquet"
    ingest_once(None, str(source), table)
    table.write_bytes(table.read_bytes()[:100])
    again = ingest_once(None, str(source), table)
    assert (again["reused"], pq.read_table(table).num_rows) == (False, 6)


def test_a_latest_pointer_out_of_the_root_is_refused(rldelta_home, tmp_path):
    (tmp_path / "outside.json").write_text(json.dumps({"secret": 1}))
    folder = store.root() / "eval_pair" / slug(MODEL)
    folder.mkdir(parents=True)
    (folder / "LATEST").write_text("../../../../outside.json")
    with pytest.raises(store.StoreError, match="outside the storage root"):
        load_stored(RlDeltaIOManager(), "eval_pair", MODEL)
    with pytest.raises(store.StoreError, match="outside the storage root"):
        read_value(str(tmp_path / "outside.json"))


def test_a_failure_modes_pointer_out_of_the_root_is_refused(rldelta_home, tmp_path):
    pq.write_table(pa.table({"trace_id": ["x"]}), tmp_path / "outside.parquet")
    folder = store.failure_mode_folder(MODEL)
    folder.mkdir(parents=True)
    (folder / "LATEST").write_text("../../../../../outside.parquet")
    with pytest.raises(store.StoreError, match="LATEST"):
        latest_table(None, MODEL)


def test_a_stored_value_naming_a_table_outside_the_root_is_refused(rldelta_home, tmp_path):
    folder = store.root() / "post_rl_traces" / slug(MODEL)
    folder.mkdir(parents=True)
    (folder / "r1.json").write_text(json.dumps({"path": str(tmp_path / "elsewhere.parquet"), "rows": 3}))
    (folder / "LATEST").write_text("r1.json")
    with pytest.raises(store.StoreError, match=r"stored value .*r1.json \(path\)"):
        load_stored(RlDeltaIOManager(), "post_rl_traces", MODEL)
