"""The store on a real S3 endpoint (moto's server, scripts/setup.d/50-s3.sh), reached through s3fs the way
a deployment reaches a bucket: every kind of stored thing (values and their LATEST pointers, trace tables
and their stamps, failure-mode tables and their pointer, step tables) is written as objects and read back,
and the local store's rules hold there too: no run overwrites another's value, bad input leaves what was
stored in place, and a pointer or value naming a place outside the root is refused.
"""

import os

import dagster as dg
import fsspec
import pyarrow as pa
import pytest

from resources.io_manager import RlDeltaIOManager, load_stored
from rl_assets import store
from rl_assets.support import failure_modes_store
from rl_assets.support.trace_tables import ingest_addressed, ingest_once, stamp_path

MODEL = "org/m-8B"


class Value(dg.Config):
    n: int = 0
    table: bool = False  # return a table instead of a value: input the IO manager refuses


@dg.asset
def produced(config: Value):
    return pa.table({"n": [config.n]}) if config.table else {"n": config.n}


@dg.asset
def consumed(produced):
    return {"seen": produced["n"]}


def _run(asset, instance, **config):
    return dg.materialize(
        [asset] if asset is produced else [produced, asset],
        selection=[asset],
        instance=instance,
        resources={"io_manager": RlDeltaIOManager()},
        run_config={"ops": {"produced": {"config": config}}} if asset is produced else None,
        raise_on_error=False,
    )


def _objects(root: str) -> dict[str, bytes]:
    """Every object under `root`, by key inside it, with its bytes (listed fresh from the server)."""
    fs, base = fsspec.core.url_to_fs(root)
    fs.invalidate_cache()
    return {path[len(base) + 1 :]: fs.cat_file(path) for path in fs.find(base)}


def test_values_and_latest_pointers_on_s3_one_object_per_run_and_refused_input_changes_nothing(
    rldelta_home, s3_root, monkeypatch
):
    monkeypatch.setenv("RLDELTA_STORAGE", s3_root)
    with dg.DagsterInstance.ephemeral() as instance:  # in memory: the event log is not what is tested
        first, second = _run(produced, instance, n=1), _run(produced, instance, n=2)
        assert first.success and second.success
        stored = _objects(s3_root)
        assert sorted(stored) == sorted(
            [
                f"produced/__all__/{first.run_id}.json",
                f"produced/__all__/{second.run_id}.json",
                "produced/__all__/LATEST",
            ]
        ), "one object per run plus the pointer, no temp object left behind"
        assert stored["produced/__all__/LATEST"] == f"{second.run_id}.json".encode()
        recorded = second.asset_materializations_for_node("produced")[0].metadata["stored_at"].path
        assert recorded == f"{s3_root}/produced/__all__/{second.run_id}.json"

        # a later run reads the value its latest materialization recorded, as an object
        downstream = _run(consumed, instance)
        assert downstream.success and downstream.output_for_node("consumed") == {"seen": 2}
        # a reader without an instance (a sensor) follows LATEST
        assert load_stored(RlDeltaIOManager(), "produced", None) == {"n": 2}

        # bad input (a table returned as a value) fails the step and leaves every stored object as it was
        refused = _run(produced, instance, n=3, table=True)
        assert not refused.success
        (failure,) = [e for e in refused.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
        assert "returned a table: write it with rl_assets.store" in failure.event_specific_data.error.to_string()
        after = _objects(s3_root)
        assert {k: v for k, v in after.items() if k.startswith("produced/")} == stored

    # an edited pointer that leads out of the root is refused, naming it, and nothing is read there
    store.write_bytes(f"{s3_root}/produced/__all__/LATEST", b"../../../elsewhere/x.json")
    with pytest.raises(store.StoreError, match="outside the storage root"):
        load_stored(RlDeltaIOManager(), "produced", None)


def _rows(path, n):
    path.write_text(
        "".join(
            f'{{"conversations": [], "task": "t{i}", "trial_name": "t{i}__a", "result": "1.0"}}\n' for i in range(n)
        )
    )
    return str(path)


def test_tables_stamps_and_pointers_on_s3_are_reused_kept_and_checked(rldelta_home, s3_root, monkeypatch, tmp_path):
    monkeypatch.setenv("RLDELTA_STORAGE", s3_root)
    source = _rows(tmp_path / "rows.jsonl", 3)

    # a trace table: built in a local staging file, uploaded in one PUT, its stamp beside it
    built = ingest_addressed(None, source, "baseline_traces", MODEL, benchmark="b")
    table = built["path"]
    assert table.startswith(f"{s3_root}/tables/baseline_traces/org--m-8B/") and not built["reused"]
    stamp = store.read_json(stamp_path(table))
    assert store.read_table(table).num_rows == 3 and stamp["built"]["rows"] == 3
    assert stamp["built"]["metadata"]["path"] == table  # the object, not the worker's staging file
    assert not any(store.local_cache("staging").glob("*")), "the staging file is removed once uploaded"
    import rl_assets.ingest

    with monkeypatch.context() as patched:
        patched.setattr(rl_assets.ingest, "ingest_source", lambda *a, **k: pytest.fail("re-ingested"))
        again = ingest_addressed(None, source, "baseline_traces", MODEL, benchmark="b")
    assert again["reused"] and again["path"] == table  # the stamp's digest matched the object's bytes

    # bad input: a rebuild at the same place from a source that cannot be read keeps the stored table
    before = store.read_bytes(table)
    with pytest.raises(FileNotFoundError, match="missing.jsonl"):
        ingest_once(None, str(tmp_path / "missing.jsonl"), table)
    assert store.read_bytes(table) == before

    # failure-mode tables: one object per run, LATEST names the newest, the older one is never replaced
    first = failure_modes_store.table_path(MODEL, "run-1")
    second = failure_modes_store.table_path(MODEL, "run-2")
    failure_modes_store.write_table(pa.table({"label": ["a"]}), first)
    failure_modes_store.write_table(pa.table({"label": ["b", "c"]}), second)
    assert failure_modes_store.latest_table(None, MODEL) == second
    assert store.read_table(first).column("label").to_pylist() == ["a"]
    pointer = f"{store.failure_mode_folder(MODEL)}/LATEST"
    store.write_bytes(pointer, b"../../../../elsewhere/t.parquet")
    with pytest.raises(store.StoreError, match="outside the storage root"):
        failure_modes_store.latest_table(None, MODEL)

    # the Q2 step table: written and read back by location
    steps = str(store.step_table(MODEL, "run-1"))
    store.write_table(pa.table({"step": [1, 2], "reward": [0.5, 0.75]}), steps)
    assert store.read_table(steps).to_pylist() == [{"step": 1, "reward": 0.5}, {"step": 2, "reward": 0.75}]

    # nothing of this landed in the home folder, and no object or key names the secret key
    assert not (rldelta_home / "storage").exists()
    secret = os.environ["AWS_SECRET_ACCESS_KEY"].encode()
    assert not [key for key, data in _objects(s3_root).items() if secret in data or secret.decode() in key]
