"""The eval pair's two trace tables are one step (rl_assets/assets/traces.py): both sides ingested
at once (the post-RL side in a forked child) give the same tables as one after the other, a side
whose source fails does not take the other with it, and a run selecting one side reads only it."""

import json
import multiprocessing
import os
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest
from test_run_isolation import _resources, _source  # tests/ is on sys.path (rootdir import mode)

import rl_assets.support.ingest_step as ingest_step
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from rl_assets.support.forked_call import ENV_SWITCH
from tests.support.results import materialized

FORKED, INLINE, BAD = "org/forked-8B", "org/inline-8B", "org/bad-8B"


@pytest.fixture
def instance(rldelta_home):
    inst = dg.DagsterInstance.ephemeral()
    inst.add_dynamic_partitions("models", [FORKED, INLINE, BAD])
    return inst


def _spy_on_ingest(monkeypatch) -> None:
    """Each built table's metadata also says which process ingested it (a fork keeps the patch)."""
    original = ingest_step.ingest_addressed

    def spy(*args, **kwargs):
        built = original(*args, **kwargs)
        return {**built, "metadata": {**built["metadata"], "ingest_pid": os.getpid()}}

    monkeypatch.setattr(ingest_step, "ingest_addressed", spy)


@pytest.fixture
def pid_of_ingest(monkeypatch):
    _spy_on_ingest(monkeypatch)


def _meta(result, asset: str) -> dict:
    (mat,) = materialized(result, asset)
    return {k: getattr(v, "value", v) for k, v in mat.metadata.items()}


def _both_ways(folder: str) -> dict:
    """In a fresh process (one Python thread, so ForkedCall forks): the pair ingested at once, then
    with forking switched off, on two partitions of one instance; what each run saw, as plain values."""
    tmp = Path(folder)
    home = tmp / "home"
    home.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLDELTA_HOME", str(home))
        _spy_on_ingest(mp)
        instance = dg.DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("models", [FORKED, INLINE])
        resources = _resources(_source(tmp, "base", 40), _source(tmp, "post", 30))
        forked = dg.materialize([eval_pair, eval_traces], instance=instance, partition_key=FORKED, resources=resources)
        mp.setenv(ENV_SWITCH, "0")
        inline = dg.materialize([eval_pair, eval_traces], instance=instance, partition_key=INLINE, resources=resources)
        out: dict = {"pid": os.getpid()}
        for name, result in (("forked", forked), ("inline", inline)):
            for asset in ("baseline_traces", "post_rl_traces"):
                meta, ref = _meta(result, asset), result.asset_value(asset)
                out[name, asset] = {
                    "pid": meta["ingest_pid"],
                    "how": meta["ingested_beside_the_other_side"],
                    "rows": ref.rows,
                    "version": ref.data_version,
                    "accounting": ref.accounting,
                    "path": ref.path,
                    "table": pq.read_table(ref.path).to_pylist(),
                }
        out["checks"] = {
            (e.asset_key.to_user_string(), e.check_name, e.passed) for e in forked.get_asset_check_evaluations()
        }
        return out


def test_both_sides_at_once_give_the_tables_of_one_after_the_other(tmp_path):
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        seen = pool.apply(_both_ways, (str(tmp_path),))
    run_pid = seen["pid"]
    base, post = seen["forked", "baseline_traces"], seen["forked", "post_rl_traces"]
    assert base["pid"] == run_pid and post["pid"] != run_pid  # the post-RL side was read in the child
    assert base["how"] == post["how"] == "forked child"
    assert seen["inline", "post_rl_traces"]["pid"] == run_pid
    assert seen["inline", "post_rl_traces"]["how"] == f"inline ({ENV_SWITCH}=0)"
    for asset in ("baseline_traces", "post_rl_traces"):
        a, b = seen["forked", asset], seen["inline", asset]
        assert a["path"] != b["path"] and a["table"] == b["table"]
        assert (a["rows"], a["version"], a["accounting"]) == (b["rows"], b["version"], b["accounting"])
    assert (base["rows"], post["rows"]) == (40, 30)
    assert {(a, "every_input_accounted_for", True) for a in ("baseline_traces", "post_rl_traces")} <= seen["checks"]


def test_a_side_that_cannot_be_read_does_not_take_the_other(instance, tmp_path):
    bad = tmp_path / "eval_outputs.jsonl"  # rows no reader understands: an IngestError, not retried
    bad.write_text("".join(json.dumps({"idx": i, "question": "q", "answer": "a"}) + "\n" for i in range(5)))
    result = dg.materialize(
        [eval_pair, eval_traces],
        instance=instance,
        partition_key=BAD,
        resources=_resources(_source(tmp_path, "base", 12), str(bad)),
        raise_on_error=False,
    )
    assert not result.success
    assert result.asset_value("baseline_traces").rows == 12  # the readable side is materialized
    assert not materialized(result, "post_rl_traces")
    (failure,) = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    message = failure.step_failure_data.user_failure_data.description
    assert message.startswith(f"post_rl_traces {BAD}: cannot ingest {bad}")


def test_a_run_that_selects_one_side_reads_only_that_one(instance, tmp_path, pid_of_ingest):
    resources = _resources(str(tmp_path / "never-read.jsonl"), _source(tmp_path, "post", 12))
    result = dg.materialize(
        [eval_pair, eval_traces],
        selection=["eval_pair", "post_rl_traces"],
        instance=instance,
        partition_key=FORKED,
        resources=resources,
    )
    assert not materialized(result, "baseline_traces")
    post = _meta(result, "post_rl_traces")
    assert post["ingest_pid"] == os.getpid() and "ingested_beside_the_other_side" not in post
    evaluated = {e.asset_key.to_user_string() for e in result.get_asset_check_evaluations()}
    assert "post_rl_traces" in evaluated and "baseline_traces" not in evaluated
