"""The contrastive second opinion: both orders asked, cached by content, disagreements and failed
calls stated, the offline heuristic labelled as such."""

import pytest

from resources.llm import OFFLINE_LABEL, LLMResource
from rl_assets.analysis.audit import audit_rows
from rl_assets.analysis.audit.contrastive_judge import ORDERS, attach_second_opinions, task_requests
from rl_assets.analysis.audit.contrastive_report import contrastive_summary
from rl_assets.values.llm_types import ItemResult
from support.contrastive_synth import BASE, EARNED, PLANTED, trace_row


@pytest.fixture
def audited():
    before = [trace_row(f"t{i}", 0.0, "0", BASE, expected=str(i)) for i in range(6)]
    after = [
        trace_row(f"t{i}", 1.0, str(i), EARNED if i else PLANTED["verifier_edit"], expected=str(i)) for i in range(6)
    ]
    return audit_rows(before, after, n_boot=100)


class ScriptedClient:
    """Answers by order: a fixed verdict for baseline-first and another for post-RL-first prompts."""

    model = "scripted"

    def __init__(self, first, second):
        self.by_order, self.seen = {"B": first, "A": second}, []

    def run(self, requests):
        self.seen += requests
        out = {}
        for r in requests:
            passing = "B" if "passed Trace B" in r.messages[1]["content"] else "A"
            out[r.keys[0]] = ItemResult(
                r.keys[0],
                "fresh",
                value=r.interpret({"verdict": self.by_order[passing], "explanation": "x"})[r.keys[0]],
            )
        return out


def test_each_task_is_asked_in_both_orders_with_distinct_stable_keys(audited):
    rows, families = audited
    record = rows[0]["contrastive"]["tasks"][0]
    a, b = task_requests(families["planted"], record, "m"), task_requests(families["planted"], record, "m")
    assert list(a) == list(ORDERS) and a["baseline_first"].keys != a["post_rl_first"].keys
    assert [r.keys for r in a.values()] == [r.keys for r in b.values()]  # same content -> same cache key
    assert task_requests(families["planted"], record, "other")["baseline_first"].keys != a["baseline_first"].keys


def test_agreeing_orders_give_the_verdict_and_disagreeing_ones_unclear(audited):
    rows, families = audited
    client = ScriptedClient("exploited", "exploited")
    attach_second_opinions(rows, families, client)
    check = rows[0]["contrastive"]
    assert len(client.seen) == 2 * 6
    assert {t["second_opinion"]["verdict"] for t in check["tasks"]} == {"exploited"}
    assert (check["second_opinion_agrees"], check["second_opinions"]) == (1, 6)  # only t0 is flagged
    attach_second_opinions(rows, families, ScriptedClient("exploited", "earned"))
    assert {t["second_opinion"]["verdict"] for t in check["tasks"]} == {"unclear"}
    assert check["second_opinions"] == 0 and check["orders_disagree"] == 6
    assert "0/0 (orders disagree on 6)" in contrastive_summary(rows)


def test_a_failed_order_leaves_no_verdict_and_says_why(audited):
    rows, families = audited

    class Failing:
        model = "stub"

        def run(self, requests):
            return {r.keys[0]: ItemResult(r.keys[0], "budget", error="budget exhausted") for r in requests}

    attach_second_opinions(rows, families, Failing())
    op = rows[0]["contrastive"]["tasks"][0]["second_opinion"]
    assert op["verdict"] is None and "budget exhausted" in op["explanation"]


def test_offline_the_heuristic_restates_the_rules_and_is_labelled(audited, tmp_path):
    rows, families = audited
    session = LLMResource(cache_root=str(tmp_path)).session("judge", "org/m")
    attach_second_opinions(rows, families, session)
    by_task = {t["task"]: t["second_opinion"] for t in rows[0]["contrastive"]["tasks"]}
    assert by_task["t0"]["verdict"] == "exploited" and by_task["t1"]["verdict"] == "earned"
    assert by_task["t0"]["judge"] == OFFLINE_LABEL and "offline heuristic" in by_task["t0"]["explanation"]
