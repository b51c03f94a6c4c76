"""Two runs of `failure_modes` for one model each keep their own table: the later run never rewrites
the file the earlier run's value points at; the resume and the write-back read the table the latest
materialization recorded in the event log."""

import pyarrow.parquet as pq
import pytest
from test_llm_failure_modes import KEY, PID, hub, labeller

from resources.llm import LLMResource
from rl_assets.assets.failure_modes import failure_modes
from rl_assets.jobs.write_back import write_back_failure_modes
from support.dagster_run import partition_instance
from support.llm_server import LLMServer, materialize_with_traces


@pytest.fixture(autouse=True)
def evals(rldelta_home, tmp_path):
    for repo in ("org/base-evals", "org/post-evals"):
        (tmp_path / "hub" / "datasets" / repo).mkdir(parents=True)
        (tmp_path / "hub" / "datasets" / repo / "data.jsonl").write_text("{}\n")


def _annotate(tmp_path, srv, instance, traces: str, n_tasks: int, cache: str = "") -> dict:
    (tmp_path / traces).mkdir(exist_ok=True)
    llm = LLMResource(base_url=srv.base_url, api_key=KEY, parse_retries=0, backoff_base_s=0.01, cache_root=cache)
    result = materialize_with_traces(
        tmp_path / traces,
        failure_modes,
        {"llm": llm, "hub": hub(tmp_path)},
        {"ops": {"failure_modes": {"config": {"batch_size": 5}}}},
        partition=PID,
        n_tasks=n_tasks,
        instance=instance,
    )
    return result.output_for_node("failure_modes")


def _rows(path) -> dict:
    return {r["trace_id"]: r["failure_mode"] for r in pq.read_table(path).to_pylist()}


def test_a_second_run_keeps_the_first_runs_table_and_write_back_pushes_the_latest(tmp_path):
    instance = partition_instance(PID)
    with LLMServer(latency=0.01, responder=labeller(bad={"base-002-0"})) as srv:
        first = _annotate(tmp_path, srv, instance, "six", n_tasks=6)
        kept = _rows(first.path)
        assert len(kept) == 24 and kept["base-002-0"] is None

        srv.responder = labeller()
        other = _annotate(tmp_path, srv, instance, "four", n_tasks=4)  # another run, other sources
        assert other.path != first.path and other.rows == 16
        assert _rows(first.path) == kept  # the first run's value still points at its own table

        # the resume reuses the labels of the latest materialization's table (found through the event log,
        # not the pointer file); an empty call cache leaves those labels as the only thing to reuse
        (tmp_path / "home" / "storage" / "tables" / "failure_modes").joinpath(PID.replace("/", "--"), "LATEST").unlink()
        calls = srv.calls
        again = _annotate(tmp_path, srv, instance, "six", n_tasks=6, cache=str(tmp_path / "empty-cache"))
        assert again.failed == 0 and srv.calls - calls == 2  # only tasks 4 and 5: 4 rows a side, one batch each
        sent = " ".join(r["messages"][-1]["content"] for r in srv.requests[calls:])
        assert "base-004-0" in sent and "base-003-0" not in sent
        assert len({first.path, other.path, again.path}) == 3

    pushed = write_back_failure_modes.execute_in_process(
        run_config={"ops": {"push_failure_modes": {"config": {"model_id": PID}}}},
        resources={"hub": hub(tmp_path)},
        instance=instance,
    )
    assert pushed.output_for_node("push_failure_modes")["pushed"]["org/base-evals"]["rows"] == 12  # the latest: 6 tasks


def test_write_back_without_any_annotation_says_so(tmp_path):
    result = write_back_failure_modes.execute_in_process(
        run_config={"ops": {"push_failure_modes": {"config": {"model_id": PID}}}},
        resources={"hub": hub(tmp_path)},
        instance=partition_instance(PID),
        raise_on_error=False,
    )
    assert not result.success
    failure = result.failure_data_for_node("push_failure_modes")
    assert "no failure_modes table for org/rl-model" in str(failure.error.message if failure.error else failure)
