"""LLM client against the loopback server with the REAL openai SDK: retries, isolation, cache, cost, budget."""

import json
import logging
import time
from types import SimpleNamespace

import pytest

from resources.llm import OFFLINE_LABEL, LLMResource, default_llm_resource
from rl_assets.values.llm_types import LLMRequest
from support.llm_server import LLMServer, as_json, hang, status, text

KEY = "sk-test-SECRET-0123456789"


def echo(body):
    return as_json({"ok": True, "item": body["messages"][-1]["content"]})


def req(i):
    key = f"key-{i:03d}"

    def interpret(obj):
        if obj.get("ok") is not True:
            raise ValueError("not ok")
        return {key: obj}

    return LLMRequest(
        keys=[key],
        messages=[{"role": "user", "content": f"item {i}"}],
        schema_name="t",
        schema={"type": "object"},
        interpret=interpret,
        label=f"item {i}",
    )


@pytest.fixture
def server():
    with LLMServer(latency=0.01, responder=echo) as srv:
        yield srv


def make(server, tmp_path, **kw):
    opts = dict(
        base_url=server.base_url,
        api_key=KEY,
        judge_model="gpt-5",
        # generous: a loaded machine can take over half a second to answer, and a timeout is a retry, an
        # extra call the call counts below would see; the timeout tests set their own short one
        timeout_s=10,
        max_retries=3,
        backoff_base_s=0.01,
        backoff_max_s=0.05,
        cache_root=str(tmp_path / "llm"),
        max_output_tokens=1000,
    )
    return LLMResource(**(opts | kw))


def test_429_retry_after_and_500_are_retried(server, tmp_path, monkeypatch):
    import resources.llm.client as llm_client

    waits = []  # the client's own waits, recorded instead of slept (only this module's `time`)
    monkeypatch.setattr(llm_client, "time", SimpleNamespace(monotonic=time.monotonic, sleep=waits.append))
    server.script += [status(429, retry_after=0.3), status(500)]
    client = make(server, tmp_path).session("judge", "org/model")
    out = client.run([req(1)])
    assert out["key-001"].status == "fresh"
    assert server.calls == 3 and client.counters["retries"] == 2
    # Retry-After honoured although backoff_max_s is 0.05; the 500 falls back to the capped backoff
    assert waits[0] == pytest.approx(0.3) and len(waits) == 2 and waits[1] <= 0.05


def test_hang_times_out_and_is_retried(server, tmp_path):
    server.script += [hang(5)]
    client = make(server, tmp_path, timeout_s=0.3).session("judge", "org/model")
    assert client.run([req(1)])["key-001"].status == "fresh"
    # the first call was cut by the client timeout (not by the server giving up after 5 s)
    assert server.calls == 2 and [r["status"] for r in client.ledger.read()] == ["timeout", "ok"]


def test_retries_exhausted_is_a_failure_not_a_crash(server, tmp_path):
    server.script += [status(503)] * 4
    client = make(server, tmp_path).session("judge", "org/model")
    out = client.run([req(1)])
    assert out["key-001"].status == "failed" and "503" in out["key-001"].error
    assert server.calls == 4  # 1 + max_retries


def test_malformed_reply_not_cached_and_retried_next_run(server, tmp_path):
    server.script += [text("I think trace A is better."), text('{"ok": tru')]
    res = make(server, tmp_path, parse_retries=1)
    out = res.session("judge", "org/model").run([req(1)])
    assert out["key-001"].status == "failed" and out["key-001"].error.startswith("parse")
    client2 = res.session("judge", "org/model")
    assert client2.cache.get("key-001") is None and client2.cache.failure("key-001")["attempts"] == 1
    assert client2.run([req(1)])["key-001"].status == "fresh"
    assert server.calls == 3
    assert client2.cache.failure("key-001") is None  # success clears the failure record
    assert res.session("judge", "org/model").run([req(1)])["key-001"].status == "cached" and server.calls == 3


def test_invalid_escape_and_fenced_reply_are_repaired(server, tmp_path):
    server.script += [text('Here you go:\n```json\n{"ok": true, "path": "C:\\dir\\qux", "n": [1,2,],}\n```')]
    out = make(server, tmp_path).session("judge", "org/model").run([req(1)])
    assert out["key-001"].status == "fresh"
    assert out["key-001"].value["path"] == "C:\\dir\\qux" and out["key-001"].value["n"] == [1, 2]


def test_one_bad_item_never_aborts_the_batch(server, tmp_path):
    bad = {"item 2": status(400), "item 3": text("garbage"), "item 4": hang(5)}
    server.responder = lambda body: bad.get(body["messages"][-1]["content"]) or echo(body)
    client = make(server, tmp_path, timeout_s=0.3, max_retries=1, parse_retries=0).session("judge", "org/model")
    out = client.run([req(i) for i in range(8)])
    assert {k for k, v in out.items() if v.status == "failed"} == {"key-002", "key-003", "key-004"}
    assert sum(v.status == "fresh" for v in out.values()) == 5
    assert len(client.cache.failures()) == 3 and len(client.cache) == 5


def test_offline_request_without_a_heuristic_fails_by_name(tmp_path):
    # offline mode answers with each request's heuristic; one without a heuristic (the field is optional)
    # failed as "TypeError: 'NoneType' object is not callable" (found by mypy); it now says why
    client = LLMResource(offline=True, cache_root=str(tmp_path / "llm")).session("judge", "org/model")
    with_heuristic = req(1)
    with_heuristic.offline = lambda: {"ok": True}
    out = client.run([req(0), with_heuristic])
    assert out["key-000"].status == "failed" and "no heuristic" in out["key-000"].error
    assert out["key-001"].status == "offline" and out["key-001"].value == {"ok": True}


def test_cost_and_latency_in_usage_ledger(server, tmp_path):
    client = make(server, tmp_path).session("judge", "org/model")
    client.run([req(i) for i in range(3)])
    lines = client.ledger.read()
    assert client.ledger.path.name == "org--model.jsonl" and len(lines) == 3
    per_call = (100 * 1.25 + 50 * 10.0) / 1e6  # loopback usage (100, 50) at gpt-5 list price
    assert all(r["status"] == "ok" and r["prompt_tokens"] == 100 and r["completion_tokens"] == 50 for r in lines)
    assert all(r["latency_s"] > 0 and r["cost_usd"] == pytest.approx(per_call) for r in lines)
    assert client.budget.snapshot()["used_usd"] == pytest.approx(3 * per_call)
    assert client.budget.snapshot()["used_tokens"] == 450


@pytest.mark.parametrize("concurrency", [1, 4])
def test_budget_guard_refuses_to_start_calls(server, tmp_path, concurrency):
    server.responder = lambda body: as_json({"ok": True}, prompt_tokens=100, completion_tokens=1000)
    budget = 0.025  # worst case per call ~= $0.0101, real spend $0.0101: at most two calls fit
    client = make(server, tmp_path, usd_budget=budget, concurrency=concurrency).session("judge", "org/model")
    out = client.run([req(i) for i in range(10)])
    assert server.calls <= 2 and (concurrency > 1 or server.calls == 2)
    assert client.budget.snapshot()["used_usd"] <= budget
    assert sum(v.status == "budget" for v in out.values()) == 10 - server.calls
    assert client.budget.snapshot()["refused_calls"] >= 8


def test_token_budget_guard(server, tmp_path):
    client = make(server, tmp_path, token_budget=500).session("judge", "org/model")  # one call needs ~1010
    out = client.run([req(1)])
    assert out["key-001"].status == "budget" and server.calls == 0


def test_api_key_never_in_logs_ledger_or_cache(server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    server.script += [status(401, body=json.dumps({"error": {"message": f"bad key {KEY}"}}))]
    res = make(server, tmp_path)
    client = res.session("judge", "org/model")
    out = client.run([req(i) for i in range(3)])
    assert {k.lower(): v for k, v in server.headers[0].items()}[
        "authorization"
    ] == f"Bearer {KEY}"  # the key WAS used ...
    blobs = [caplog.text, json.dumps(res.describe("judge")), repr(res), *[json.dumps(v.__dict__) for v in out.values()]]
    blobs += [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(KEY in b for b in blobs)  # ... and appears nowhere we write
    assert any(v.status == "failed" and "***" in v.error for v in out.values())


def test_structured_output_requested(server, tmp_path):
    make(server, tmp_path).session("judge", "org/model").run([req(1)])
    body = server.requests[0]
    assert body["response_format"]["type"] == "json_schema" and body["max_completion_tokens"] == 1000
    assert "temperature" not in body


def test_backend_selection_from_environment(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "RLDELTA_JUDGE_MODEL", "RLDELTA_ANNOTATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)
    offline = default_llm_resource()
    assert offline.is_offline() and offline.model_for("judge") == OFFLINE_LABEL
    assert offline.session("judge", "org/m").offline_mode
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:pw@127.0.0.1:9/v1")
    res = LLMResource()
    assert not res.is_offline() and res.model_for("judge") == "gpt-5-2025-08-07"
    assert res.model_for("annotate") == "gpt-5.1" and res.describe("judge")["base_url"] == "http://***@127.0.0.1:9/v1"
    monkeypatch.setenv("RLDELTA_JUDGE_MODEL", "openai/gpt-4.1")
    assert res.model_for("judge") == "gpt-4.1" and res.model_for("judge", "override") == "override"


def test_server_without_structured_output_falls_back_to_text(server, tmp_path):
    server.script += [
        status(400, body='{"error": {"message": "response_format json_schema is not supported"}}'),
        text('{"ok": true}'),
    ]
    client = make(server, tmp_path).session("judge", "org/model")
    assert client.run([req(1)])["key-001"].status == "fresh"
    assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]
