"""The optional LLM verdict per family, through the `llm` resource (offline heuristic here)."""

from __future__ import annotations

import pytest

from resources.llm import OFFLINE_LABEL, LLMResource
from rl_assets.analysis.audit import audit_rows
from rl_assets.analysis.audit.llm_verdict import attach_verdicts, samples
from support.audit_synth import scenario


@pytest.fixture(scope="module")
def audited():
    before, after, _ = scenario()
    return audit_rows(before, after, n_boot=200)


def test_offline_verdicts_are_labelled_as_heuristic(audited, tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    rows, families = audited
    rows = [dict(r) for r in rows]
    attach_verdicts(rows, families, LLMResource().session("judge", "org/m"), seed=0)
    by = {r["family"]: r for r in rows}
    assert all(r["audit_model"] == OFFLINE_LABEL for r in rows)
    assert by["letter_counting"]["audit_verdict"] == "gamed"  # every sampled answer is "1"
    assert by["letter_counting"]["audit_explanation"].startswith("offline heuristic")


def test_samples_are_deterministic_and_bounded(audited):
    _, families = audited
    a, b = samples(families["chain_sum"], seed=3), samples(families["chain_sum"], seed=3)
    assert a == b and len(a) == 6 and {"question", "expected", "answer", "response"} <= set(a[0])


def test_a_failed_call_leaves_the_verdict_null_and_says_why(audited):
    from rl_assets.values.llm_types import ItemResult

    class FailingClient:
        model = "stub"

        def run(self, requests):
            return {r.keys[0]: ItemResult(r.keys[0], "failed", error="HTTP 500 after retries") for r in requests}

    rows, families = audited
    rows = [dict(r) for r in rows]
    attach_verdicts(rows, families, FailingClient())
    assert all(r["audit_verdict"] is None for r in rows)
    assert rows[0]["audit_explanation"] == "llm audit not run: failed: HTTP 500 after retries"
