"""Failure-mode annotation: taxonomy, per-item isolation, resume without blanking, write-back preflight."""

import json
import re
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from resources.hub import HubResource
from resources.llm import OFFLINE_LABEL, LLMResource
from rl_assets.analysis.q1.failure_modes import TAXONOMY, distribution, heuristic_label, interpret
from rl_assets.assets.failure_modes import failure_modes
from rl_assets.jobs.write_back import write_back_failure_modes
from rl_assets.support.hub_write import repo_from_spec
from support.llm_server import LLMServer, as_json, materialize_with_traces

PID = "org/rl-model"
KEY = "sk-annot-SECRET-7"


@pytest.fixture(autouse=True)
def home(rldelta_home, tmp_path):
    """<tmp_path>/home with no endpoint or key set, and two eval datasets in <tmp_path>/hub."""
    for repo in ("org/base-evals", "org/post-evals"):
        d = tmp_path / "hub" / "datasets" / repo
        d.mkdir(parents=True)
        (d / "data.jsonl").write_text("{}\n")


def hub(tmp_path):
    return HubResource(local_root=str(tmp_path / "hub"))


def labeller(bad: set[str] = frozenset(), completion_tokens: int = 50):
    """Labels every trial in the batch; trials in ``bad`` get a category outside the taxonomy."""

    def respond(body):
        ids = re.findall(r"### Trial (\S+)", body["messages"][-1]["content"])
        return as_json(
            {
                "items": [
                    {
                        "trace_id": t,
                        "category": "not-a-category" if t in bad else "wrong_answer",
                        "summary": f"looked at {t}",
                    }
                    for t in ids
                ]
            },
            completion_tokens=completion_tokens,
        )

    return respond


def materialize(tmp_path, llm, **config):
    return materialize_with_traces(
        tmp_path,
        failure_modes,
        {"llm": llm, "hub": hub(tmp_path)},
        {"ops": {"failure_modes": {"config": config}}},
        partition=PID,
        n_tasks=6,
    )


def test_interpret_keeps_valid_items_only():
    keys = {"t1": "k1", "t2": "k2", "t3": "k3"}
    got = interpret(
        {
            "items": [
                {"trace_id": "t1", "category": "Tool misuse", "summary": "s"},
                {"trace_id": "t2", "category": "weird"},
                {"trace_id": "zz", "category": "loop"},
            ]
        },
        keys,
    )
    assert got == {"k1": {"category": "tool_misuse", "summary": "s"}}
    with pytest.raises(ValueError):
        interpret({"nothing": 1}, keys)


def test_heuristic_and_distribution():
    assert heuristic_label({"is_infra_error": True, "error_type": "DaytonaError"})["category"] == "infra_error"
    assert heuristic_label({"error_type": "AgentTimeoutError"})["category"] == "timeout"
    assert heuristic_label({"reward": 0.0})["category"] == "wrong_answer"
    d = distribution({"baseline": ["success", "timeout"], "post_rl": ["success"] * 3 + ["timeout"]})
    assert d["shift"]["success"] == pytest.approx(0.25) and set(d["counts"]["baseline"]) == set(TAXONOMY)


def test_offline_annotation_both_sides(tmp_path):
    result = materialize(tmp_path, LLMResource())
    out = result.output_for_node("failure_modes")
    assert out.annotator == OFFLINE_LABEL and out.rows == 24 and out.failed == 0
    assert out.coverage == {"baseline": 1.0, "post_rl": 1.0}
    assert sum(out.counts["post_rl"].values()) == 12 and out.shift["success"] is not None
    table = pq.read_table(out.path).to_pylist()
    assert {r["side"] for r in table} == {"baseline", "post_rl"} and all(r["annotator"] == OFFLINE_LABEL for r in table)


def test_bad_item_isolated_and_resume_never_blanks(tmp_path):
    with LLMServer(latency=0.01, responder=labeller(bad={"base-002-0"})) as srv:
        llm = LLMResource(base_url=srv.base_url, api_key=KEY, parse_retries=0, backoff_base_s=0.01)
        out = materialize(tmp_path, llm, batch_size=5).output_for_node("failure_modes")
        assert srv.calls == 6 and out.failed == 1  # 12 + 12 rows in batches of 5; one item rejected
        rows = {r["trace_id"]: r for r in pq.read_table(out.path).to_pylist()}
        assert rows["base-002-0"]["failure_mode"] is None and rows["base-002-1"]["failure_mode"] == "wrong_answer"

        srv.responder = labeller()
        out2 = materialize(tmp_path, llm, batch_size=5).output_for_node("failure_modes")
        assert srv.calls == 7 and "base-002-0" in srv.requests[-1]["messages"][-1]["content"]
        assert out2.failed == 0 and out2.counts["baseline"]["wrong_answer"] == 12
        statuses = [r["status"] for r in pq.read_table(out2.path).to_pylist()]
        assert statuses.count("cached") == 23 and statuses.count("fresh") == 1


def test_budget_stop_then_resume_fills_the_rest(tmp_path):
    with LLMServer(latency=0.01, responder=labeller(completion_tokens=2000)) as srv:  # ~$0.02 per call
        common = dict(base_url=srv.base_url, api_key=KEY, concurrency=1, max_output_tokens=2000)
        out = materialize(tmp_path, LLMResource(usd_budget=0.05, **common), batch_size=4).output_for_node(
            "failure_modes"
        )
        first = srv.calls
        assert first == 2 and out.failed == 24 - 4 * first and out.calls["used_usd"] <= 0.05
        out2 = materialize(tmp_path, LLMResource(**common), batch_size=4).output_for_node("failure_modes")
        assert out2.failed == 0 and srv.calls - first == 6 - first  # finished rows were not re-sent


def test_write_back_403_is_detected_before_any_llm_call(tmp_path):
    (tmp_path / "hub" / "datasets" / "org" / "post-evals" / ".readonly").touch()
    with LLMServer(latency=0.01, responder=labeller()) as srv:
        llm = LLMResource(base_url=srv.base_url, api_key=KEY)
        with pytest.raises(dg.Failure, match="org/post-evals.*read-only"):
            materialize(tmp_path, llm, write_back=True)
        assert srv.calls == 0


def _push(tmp_path, **config):
    return write_back_failure_modes.execute_in_process(
        run_config={"ops": {"push_failure_modes": {"config": {"model_id": PID, **config}}}},
        resources={"hub": hub(tmp_path)},
        raise_on_error=False,
    )


def test_write_back_job_checks_all_repos_first_and_uploads(tmp_path):
    with LLMServer(latency=0.01, responder=labeller()) as srv:
        annotated = materialize(tmp_path, LLMResource(base_url=srv.base_url, api_key=KEY)).output_for_node(
            "failure_modes"
        )
    assert repo_from_spec("hf:org/base-evals@abc") == "org/base-evals" and repo_from_spec("./x.jsonl") is None
    readonly = tmp_path / "hub" / "datasets" / "org" / "post-evals" / ".readonly"
    readonly.touch()
    assert not _push(tmp_path).success
    assert not list((tmp_path / "hub").rglob("annotations/*"))  # nothing uploaded anywhere
    readonly.unlink()
    result = _push(tmp_path)
    assert result.success
    pushed = tmp_path / "hub" / "datasets" / "org" / "base-evals" / "annotations" / "failure_modes.parquet"
    rows = pq.read_table(pushed).to_pylist()
    assert len(rows) == 12 and {r["failure_mode"] for r in rows} == {"wrong_answer"}
    text = json.dumps([str(e) for e in result.all_events]) + Path(annotated.path).read_bytes().decode("latin-1")
    assert KEY not in text


def test_write_back_refuses_offline_labels_by_default(tmp_path):
    materialize(tmp_path, LLMResource())
    assert not _push(tmp_path).success
    assert _push(tmp_path, allow_offline_labels=True).success
