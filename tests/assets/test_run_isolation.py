"""Two runs of one partition with different sources at the same time each see only their own values,
and an edited local source makes everything downstream of the trace tables stale."""

import json
import multiprocessing

import dagster as dg
import pyarrow.parquet as pq
import pytest
from dagster._core.definitions.data_version import StaleStatus
from dagster._utils.test.data_versions import get_stale_status_resolver
from test_core_assets import _rows  # tests/ is on sys.path (rootdir import mode)

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from rl_assets.values.handover import TraceTableRef
from tests.support.results import materialized

MODEL = "org/iso-8B"


@dg.asset(
    partitions_def=eval_traces.partitions_def,
    ins={"eval_pair": dg.AssetIn(), "baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
)
def seen_by_run(eval_pair: dict, baseline_traces: TraceTableRef, post_rl_traces: TraceTableRef) -> dict:
    """What a downstream step of this run received: the sources named and the rows in the tables it reads."""
    return {
        "pair": [eval_pair["baseline_eval"], eval_pair["post_rl_eval"]],
        "refs": [baseline_traces.source, post_rl_traces.source],
        "rows": [pq.read_table(baseline_traces.path).num_rows, pq.read_table(post_rl_traces.path).num_rows],
    }


def _source(folder, name: str, n: int) -> str:
    path = folder / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _rows(n, n // 2)) + "\n")
    return str(path)


def _resources(base: str, post: str) -> dict:
    return {
        "hub": HubResource(),
        "registry": RegistryResource(),
        "io_manager": RlDeltaIOManager(),
        "settings": AnalysisSettings(baseline_eval=base, post_rl_eval=post),
    }


@pytest.fixture
def instance(rldelta_home):
    # on disk, like a local `dagster dev` instance: the worker processes below open the same one
    (rldelta_home / "dagster").mkdir()
    inst = dg.DagsterInstance.local_temp(tempdir=str(rldelta_home / "dagster"))
    inst.add_dynamic_partitions("models", [MODEL])
    return inst


ASSETS = [eval_pair, eval_traces, seen_by_run]


def _worker(instance_dir: str, sources: tuple, barrier, rounds: int, out) -> None:
    """One process, like one `dagster asset materialize` CLI: each round starts with the other worker."""
    instance = dg.DagsterInstance.local_temp(tempdir=instance_dir)
    for round_ in range(rounds):
        barrier.wait(timeout=120)
        try:
            result = dg.materialize(ASSETS, instance=instance, partition_key=MODEL, resources=_resources(*sources))
            out.put((round_, sources, result.output_for_node("seen_by_run")))
        except Exception as exc:  # reported by the test with the round it happened in
            out.put((round_, sources, repr(exc)))


def test_concurrent_runs_of_one_partition_never_read_each_others_values(instance, rldelta_home, tmp_path):
    small = (_source(tmp_path, "small-base", 12), _source(tmp_path, "small-post", 12))
    big = (_source(tmp_path, "big-base", 48), _source(tmp_path, "big-post", 48))
    rounds = 8
    ctx = multiprocessing.get_context("spawn")  # Dagster runs in threads of one process deadlock on logging
    barrier, out = ctx.Barrier(2), ctx.Queue()
    workers = [
        ctx.Process(target=_worker, args=(str(rldelta_home / "dagster"), src, barrier, rounds, out))
        for src in (small, big)
    ]
    for w in workers:
        w.start()
    got = [out.get(timeout=600) for _ in range(2 * rounds)]
    for w in workers:
        w.join(timeout=60)
    rows = {small: 12, big: 48}
    for round_, sources, seen in got:
        assert seen == {"pair": list(sources), "refs": list(sources), "rows": [rows[sources]] * 2}, (round_, seen)
    # every run recorded its own stored value: none was overwritten by the other
    records = instance.fetch_materializations(dg.AssetKey("eval_pair"), limit=100).records
    assert len({r.asset_materialization.metadata["stored_at"].path for r in records}) == 2 * rounds


def _stale(instance, asset: str) -> StaleStatus:
    # the resolver the UI uses (dagster's own helper builds it the way the webserver does)
    return get_stale_status_resolver(instance, ASSETS).get_status(dg.AssetKey(asset), MODEL)


def test_editing_a_local_source_makes_downstream_stale(instance, tmp_path):
    base, post = _source(tmp_path, "base", 12), _source(tmp_path, "post", 12)
    first = dg.materialize(ASSETS, instance=instance, partition_key=MODEL, resources=_resources(base, post))
    assert _stale(instance, "seen_by_run") == StaleStatus.FRESH
    _source(tmp_path, "post", 48)  # the same file, now with 48 rows
    second = dg.materialize(ASSETS[:2], instance=instance, partition_key=MODEL, resources=_resources(base, post))
    versions = [materialized(r, "post_rl_traces")[0].tags["dagster/data_version"] for r in (first, second)]
    assert versions[0] != versions[1] and "None" not in versions[0]
    assert second.asset_value("post_rl_traces").rows == 48
    assert _stale(instance, "seen_by_run") == StaleStatus.STALE
    # the unchanged baseline kept its version: the same content is the same table, not re-read
    assert second.asset_value("baseline_traces").data_version == first.asset_value("baseline_traces").data_version
