"""A dead LLM endpoint is loud: every call answered 401 (through the real openai client against the
loopback server) fails the judge's and the annotator's `llm_calls_succeeded` check with the reason,
masked, in metadata and report.md; a partial failure passes and counts failures by reason."""

import json

import dagster as dg
import pytest

from resources.hub import HubResource
from resources.llm import LLMResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.failure_modes import failure_modes
from rl_assets.assets.q1_llm_judge import judge_verdicts
from support.llm_server import LLMServer, as_json, materialize_with_traces, status

PID = "org/rl-model"
KEY = "sk-loud-failure-SECRET-9876wxyz"
DENIED = '{"error": {"message": "Incorrect API key provided: sk-lou...wxyz", "type": "invalid_request_error"}}'


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "RLDELTA_JUDGE_MODEL", "RLDELTA_ANNOTATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _check(result, asset):
    (ev,) = [
        e
        for e in result.get_asset_check_evaluations()
        if e.check_name == "llm_calls_succeeded" and e.asset_key == dg.AssetKey(asset)
    ]
    return ev


def _judge(tmp_path, srv):
    llm = LLMResource(base_url=srv.base_url, api_key=KEY, backoff_base_s=0.01, max_retries=0)
    run_config = {"ops": {"judge_verdicts": {"config": {"pairs_per_probe": 3, "random_pairs": 2}}}}
    result = materialize_with_traces(
        tmp_path,
        judge_verdicts,
        {"llm": llm, "settings": AnalysisSettings(), "hub": HubResource()},
        run_config,
        partition=PID,
    )
    md = (tmp_path / "home" / "reports" / "org--rl-model" / "Q1_llm_judge" / "report.md").read_text()
    return result, md


def test_judge_all_401_fails_its_check_with_the_reason(tmp_path):
    with LLMServer(responder=lambda body: status(401, body=DENIED)) as srv:
        result, md = _judge(tmp_path, srv)
    ev = _check(result, "judge_verdicts")
    assert not ev.passed and ev.severity == dg.AssetCheckSeverity.ERROR
    reasons = ev.metadata["failure_reasons"].value
    assert "401" in reasons and "Incorrect API key" in reasons
    assert "Every judgment failed" in md and "401" in md
    for text in (reasons, md, json.dumps(result.output_for_node("judge_verdicts"), default=str)):
        assert KEY not in text and KEY[:6] not in text and KEY[-4:] not in text


def test_judge_partial_failure_passes_with_counts_by_reason(tmp_path):
    calls = []

    def flaky(body):
        calls.append(1)
        return (
            status(401, body=DENIED)
            if len(calls) % 2
            else as_json({"winner": "A", "tags": [], "confidence": "high", "rationale": "r"})
        )

    with LLMServer(responder=flaky) as srv:
        result, md = _judge(tmp_path, srv)
    ev = _check(result, "judge_verdicts")
    failed = ev.metadata["failed"].value
    assert ev.passed and 0 < failed < ev.metadata["requested"].value
    assert f"- {failed} × " in ev.metadata["failure_reasons"].value and f"{failed} judgments failed" in md


def test_annotator_all_401_fails_its_check(tmp_path):
    with LLMServer(responder=lambda body: status(401, body=DENIED)) as srv:
        llm = LLMResource(base_url=srv.base_url, api_key=KEY, backoff_base_s=0.01, max_retries=0)
        result = materialize_with_traces(
            tmp_path,
            failure_modes,
            {"llm": llm, "hub": HubResource(local_root=str(tmp_path / "hub"))},
            {"ops": {"failure_modes": {"config": {}}}},
            partition=PID,
            n_tasks=4,
        )
    ev = _check(result, "failure_modes")
    assert not ev.passed and "401" in ev.metadata["failure_reasons"].value
    assert KEY[:6] not in ev.metadata["failure_reasons"].value
