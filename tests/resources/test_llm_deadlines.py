"""Time, size and spend bounds of LLM calls (issue 25 item 13, issue 36 item 4): a total deadline per call and
per run that an endpoint trickling its reply - or its status line and headers - cannot stretch; a cap on the
reply's size that stops reading past it; token usage an endpoint reports negative is refused, and usage it
reports below the reply's own length is charged at the length."""

import time

import pytest

from resources.llm import LLMResource
from rl_assets.values.llm_types import LLMRequest
from support.llm_server import LLMServer, as_json, huge, text, trickle, trickle_head


def _request(key="k"):
    return LLMRequest(
        keys=[key],
        messages=[{"role": "user", "content": "judge this"}],
        schema_name="t",
        schema={"type": "object"},
        interpret=lambda obj: {key: obj},
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


def test_a_trickled_status_line_and_headers_cannot_outlast_the_calls_deadline(tmp_path):
    with LLMServer() as srv:  # ~50 header bytes at one per 0.2 s, and the headers never end
        srv.script.append(trickle_head(0.2))
        client = _resource(srv, tmp_path, timeout_s=1.0).session("judge", "org/m")
        t0 = time.monotonic()
        out = client.run([_request()])
        elapsed = time.monotonic() - t0
    assert out["k"].status == "failed" and "Timeout" in out["k"].error
    assert elapsed < 3.0, f"the call ran {elapsed:.1f} s under timeout_s=1"


def test_a_trickled_head_cannot_outlast_the_runs_deadline(tmp_path):
    with LLMServer(responder=lambda body: trickle_head(0.2)) as srv:
        client = _resource(srv, tmp_path, timeout_s=30.0, max_retries=20, run_timeout_s=2.0).session("judge", "org/m")
        t0 = time.monotonic()
        out = client.run([_request()])
        elapsed = time.monotonic() - t0
    assert out["k"].status == "failed" and elapsed < 4.0, f"the run took {elapsed:.1f} s under run_timeout_s=2"


def test_a_reply_cannot_cost_less_than_its_length(tmp_path):
    """An endpoint reporting 1 token for a 20,000-word reply is charged the reply's length (chars/4):
    $0.25 a call at $10/Mtok, so a $1.50 budget starts 6 calls, not all 20."""
    reply = {"text": "word " * 20_000}
    with LLMServer(responder=lambda body: as_json(reply, prompt_tokens=1, completion_tokens=1)) as srv:
        client = _resource(
            srv, tmp_path, usd_budget=1.5, concurrency=1, max_output_tokens=1000, timeout_s=30.0
        ).session("judge", "org/m")
        out = client.run([_request(f"k{i}") for i in range(20)])
        calls = srv.calls
    assert calls == 6, f"{calls} calls started under a $1.50 budget at ~$0.25 a reply"
    assert sum(r.status == "budget" for r in out.values()) == 14
    assert client.counters["usage_below_reply"] == 6
    ledger = client.ledger.read()
    assert {r["reported_completion_tokens"] for r in ledger} == {1}
    assert all(r["completion_tokens"] >= 25_000 for r in ledger)  # what was charged, the larger


def test_honest_usage_is_charged_as_reported_and_records_no_discrepancy(tmp_path):
    with LLMServer() as srv:
        srv.script.append(text('{"ok": true}', prompt_tokens=120, completion_tokens=40))
        client = _resource(srv, tmp_path).session("judge", "org/m")
        client.run([_request()])
    assert client.counters["usage_below_reply"] == 0 and client.budget.snapshot()["used_tokens"] == 160
    assert "reported_completion_tokens" not in client.ledger.read()[0]


@pytest.mark.parametrize("declare_length", [True, False], ids=["content-length", "until-close"])
def test_a_reply_past_the_size_cap_is_not_read_and_fails_naming_the_cap(tmp_path, declare_length):
    with LLMServer() as srv:  # 64 MiB against the default cap (16 MiB)
        srv.script.append(huge(64 * 2**20, declare_length=declare_length))
        client = _resource(srv, tmp_path, timeout_s=30.0).session("judge", "org/m")
        out = client.run([_request()])
        time.sleep(0.2)  # let the server notice the hang-up
        sent = srv.sent_bytes
        calls = srv.calls
    assert out["k"].status == "failed" and "max_reply_bytes" in out["k"].error and "16777216" in out["k"].error
    assert calls == 1  # a reply too large is not retried: a second one would be as large
    assert sent < 40 * 2**20, f"the server got {sent / 2**20:.0f} MiB onto the wire: the client kept reading"
