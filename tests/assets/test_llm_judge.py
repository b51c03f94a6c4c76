"""Pairwise judge: selection, validation, order-swap aggregation, and the asset end to end."""

import json

import pytest

from resources.hub import HubResource
from resources.llm import OFFLINE_LABEL, LLMResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.judge.aggregate import combine_pair, orient, summarize
from rl_assets.analysis.judge.parsing import validate_verdict
from rl_assets.analysis.judge.selection import representatives, select_probes
from rl_assets.assets.q1_llm_judge import judge_verdicts
from support.llm_server import LLMServer, as_json, materialize_with_traces, text

PID = "org/rl-model"
KEY = "sk-judge-SECRET-42"


def verdict(winner, tags=(), conf="high"):
    return validate_verdict(
        {"winner": winner, "tags": list(tags), "confidence": conf, "behavior_change": "x", "winner_reason": "y"}
    )


def test_validate_verdict_drops_unknown_tags_and_rejects_no_winner():
    v = validate_verdict([{"winner": "Trace B", "tags": ["More verbose", "made-up-tag"], "confidence": "HIGH"}])
    assert v["winner"] == "B" and v["tags"] == ["more-verbose"] and v["dropped_tags"] == ["made-up-tag"]
    assert v["confidence"] == "high"
    with pytest.raises(ValueError):
        validate_verdict({"winner": "the second one", "tags": []})


def test_orientation_and_order_disagreement_is_a_tie():
    # Order 2 shows post-RL as Trace A: "B is less verbose" means post-RL is MORE verbose.
    assert orient(verdict("A", ["less-verbose", "gave-up-early"]), post_is_b=False) == {
        "winner": "post-rl",
        "tags": ["more-verbose"],
        "unoriented": ["gave-up-early"],
    }
    agree = combine_pair("t", "p", verdict("B", ["more-tool-calls"]), verdict("A", ["fewer-tool-calls"], "low"))
    assert agree["winner"] == "post-rl" and not agree["order_flip"] and agree["confidence"] == "low"
    assert agree["tags_both_orders"] == ["more-tool-calls"]
    biased = combine_pair("t", "p", verdict("A"), verdict("A"))  # always the first slot
    assert biased["winner"] == "tie" and biased["order_flip"]
    assert combine_pair("t", "p", verdict("A"), None)["status"] == "incomplete"
    s = summarize([agree, biased, combine_pair("u", "p", verdict("B"), verdict("A"))])
    assert s["judged"] == 3 and s["win"]["post-rl"]["count"] == 2 and s["order_flip_rate"] == pytest.approx(1 / 3)
    lo, hi = s["win"]["post-rl"]["wilson95"]
    assert 0 < lo < 2 / 3 < hi < 1


def test_attempt_rule_and_disjoint_probes():
    rows = [
        {"task_id": "t1", "attempt": 1, "reward": 1.0, "trace_id": "b"},
        {"task_id": "t1", "attempt": 0, "reward": 0.0, "trace_id": "a"},
    ]
    assert representatives(rows)["t1"]["trace_id"] == "a"  # attempt 0, not the best attempt
    base = {f"t{i}": {"passed": False, "tool_calls_total": 10} for i in range(20)}
    post = {f"t{i}": {"passed": i == 7, "tool_calls_total": 10 - i / 2} for i in range(20)}
    probes = select_probes(base, post, 5, 5, seed=3)
    assert probes["most_changed"][0] == "t7"  # discordant first
    assert probes["most_changed"][1:] == ["t19", "t18", "t17", "t16"]
    assert not set(probes["most_changed"]) & set(probes["random"]) and len(probes["random"]) == 5
    assert select_probes(base, post, 5, 5, seed=3) == probes != select_probes(base, post, 5, 5, seed=4)


def _run(tmp_path, llm, run_config=None):
    result = materialize_with_traces(
        tmp_path,
        judge_verdicts,
        {"llm": llm, "settings": AnalysisSettings(), "hub": HubResource()},
        run_config,
        partition=PID,
    )
    report_dir = tmp_path / "home" / "reports" / "org--rl-model" / "Q1_llm_judge"
    return result, json.loads((report_dir / "report.json").read_text()), (report_dir / "report.md").read_text()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "RLDELTA_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)


def cfg(**kw):
    return {"ops": {"judge_verdicts": {"config": {"pairs_per_probe": 4, "random_pairs": 3, **kw}}}}


def test_offline_judge_is_labelled_everywhere(tmp_path):
    result, report, md = _run(tmp_path, LLMResource(), cfg())
    assert result.success
    assert report["judge"] == OFFLINE_LABEL and all(p["judge"] == OFFLINE_LABEL for p in report["pairs"])
    assert "Offline heuristic, not an LLM" in md and OFFLINE_LABEL in md
    assert result.output_for_node("judge_verdicts")["judge"] == OFFLINE_LABEL
    assert report["probes"]["most_changed"]["judged"] == 4 and report["probes"]["random"]["judged"] == 3
    assert report["probes"]["most_changed"]["order_flip_rate"] == 0.0  # symmetric by construction


def prefers_post(body):
    """A judge that reads the traces: the one whose transcript says 'post attempt' wins."""
    user = body["messages"][-1]["content"]
    a, b = user.split("## Trace B")
    winner = "A" if "post attempt" in a else "B"
    return as_json(
        {
            "behavior_change": "b differs",
            "tags": ["more-tool-calls", "bogus-tag"],
            "confidence": "medium",
            "winner": winner,
            "winner_reason": "it solved it",
        }
    )


def test_llm_judge_both_orders_cached_and_key_never_written(tmp_path):
    with LLMServer(latency=0.01, responder=prefers_post) as srv:
        llm = LLMResource(base_url=srv.base_url, api_key=KEY, backoff_base_s=0.01)
        result, report, md = _run(tmp_path, llm, cfg())
        assert srv.calls == 2 * 7  # every pair asked in both orders
        firsts = [json.loads(json.dumps(r["messages"][-1]["content"])) for r in srv.requests]
        assert all("Trace A" in u and "Trace B" in u and "post-rl" not in u.lower() for u in firsts)  # anonymised
        mc = report["probes"]["most_changed"]
        assert mc["win"]["post-rl"]["share"] == 1.0 and mc["order_flip_rate"] == 0.0
        assert mc["dropped_tags"] == 2 * 4 and report["judge"] == "gpt-5-2025-08-07"
        assert report["prompt_version"] in md and report["judge"] in md
        check = result.get_asset_check_evaluations()[0]
        assert check.passed and check.metadata["parse_failure_rate"].value == 0.0

        result2, report2, _ = _run(tmp_path, llm, cfg())
        assert srv.calls == 14 and report2["calls"]["cached"] == 14  # re-run is free
        events = json.dumps([str(e) for e in result.all_events + result2.all_events])
        files = [
            p.read_text(errors="ignore")
            for p in (tmp_path / "home").rglob("*")
            if p.is_file() and p.suffix in (".json", ".md", ".jsonl")
        ]
        assert KEY not in events and not any(KEY in f for f in files)


def test_position_bias_shows_as_order_flips(tmp_path):
    always_a = lambda body: as_json(
        {
            "behavior_change": "",
            "tags": [],
            "confidence": "low",
            "winner": "A",  # noqa: E731
            "winner_reason": "",
        }
    )
    with LLMServer(latency=0.01, responder=always_a) as srv:
        _, report, _ = _run(tmp_path, LLMResource(base_url=srv.base_url, api_key=KEY), cfg(random_pairs=0))
    mc = report["probes"]["most_changed"]
    assert mc["order_flip_rate"] == 1.0 and mc["win"]["tie"]["share"] == 1.0


def test_parse_failures_fail_the_check_and_are_retried_next_run(tmp_path):
    with LLMServer(latency=0.01, responder=prefers_post) as srv:
        srv.script += [text("no json here")] * 4  # parse_retries=1: both orders of the first pair fail
        llm = LLMResource(base_url=srv.base_url, api_key=KEY, concurrency=1)
        result, report, _ = _run(tmp_path, llm, cfg(random_pairs=0))
        assert report["parse_failures"] == 2 and report["judgments_failed"] == 2
        assert report["probes"]["most_changed"]["judged"] == 3  # the pair is incomplete, not a "tie"
        assert not result.get_asset_check_evaluations()[0].passed
        calls = srv.calls
        _, report2, _ = _run(tmp_path, llm, cfg(random_pairs=0))
        assert srv.calls - calls == 2 and report2["probes"]["most_changed"]["judged"] == 4
