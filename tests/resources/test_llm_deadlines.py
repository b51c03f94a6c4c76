"""Time and spend bounds of LLM calls (issue 25 item 13): a total deadline per call and per run that an
endpoint trickling its reply cannot stretch, and token usage an endpoint reports negative is refused."""

import time

from resources.llm import LLMResource
from rl_assets.values.llm_types import LLMRequest
from support.llm_server import LLMServer, as_json, text, trickle


def _request():
    return LLMRequest(
        keys=["k"],
        messages=[{"role": "user", "content": "judge this"}],
        schema_name="t",
        schema={"type": "object"},
        interpret=lambda obj: {"k": obj},
        label="one",
    )


def _resource(server, tmp_path, **kw):
    opts = dict(
        base_url=server.base_url,
        api_key="sk-test-0123456789abcd",
        judge_model="gpt-5",
        timeout_s=1.0,
        max_retries=0,
        backoff_base_s=0.01,
        backoff_max_s=0.02,
        cache_root=str(tmp_path / "llm"),
    )
    return LLMResource(**(opts | kw))


def test_a_trickling_reply_cannot_outlast_the_calls_total_deadline(tmp_path):
    with LLMServer() as srv:  # ~250 bytes at one per 0.1 s: 25 s, while each read takes 0.1 s
        srv.script.append(trickle(0.1))
        client = _resource(srv, tmp_path).session("judge", "org/m")
        t0 = time.monotonic()
        out = client.run([_request()])
        elapsed = time.monotonic() - t0
    assert out["k"].status == "failed" and "Timeout" in out["k"].error
    assert elapsed < 3.0, f"the call ran {elapsed:.1f} s under timeout_s=1"


def test_a_judge_run_ends_at_its_run_deadline_whatever_the_retries(tmp_path):
    with LLMServer(responder=lambda body: trickle(0.1)) as srv:
        client = _resource(srv, tmp_path, max_retries=20, run_timeout_s=2.0).session("judge", "org/m")
        t0 = time.monotonic()
        out = client.run([_request()])
        elapsed = time.monotonic() - t0
    assert out["k"].status == "failed" and elapsed < 4.0, f"the run took {elapsed:.1f} s under run_timeout_s=2"
    assert "deadline" in out["k"].error or "Timeout" in out["k"].error


def test_negative_token_usage_is_counted_and_charged_the_worst_case(tmp_path):
    with LLMServer() as srv:
        srv.script.append(text('{"ok": true}', prompt_tokens=-10_000_000, completion_tokens=5))
        client = _resource(
            srv, tmp_path, max_output_tokens=1000, input_usd_per_mtok=1.0, output_usd_per_mtok=1.0
        ).session("judge", "org/m")
        assert client.run([_request()])["k"].status == "fresh"
    spent = client.budget.snapshot()
    assert client.counters["bad_usage"] == 1
    assert spent["used_tokens"] >= 1000 and spent["used_usd"] > 0  # never negative: no budget handed back


def test_valid_usage_is_charged_as_reported(tmp_path):
    with LLMServer() as srv:
        srv.script.append(as_json({"ok": True}))
        client = _resource(srv, tmp_path).session("judge", "org/m")
        client.run([_request()])
    assert client.counters["bad_usage"] == 0 and client.budget.snapshot()["used_tokens"] == 150
