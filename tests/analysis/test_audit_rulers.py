"""Two rulers: recorded scores beside the installed scorer's re-score, a label under each, the flag."""

from __future__ import annotations

import pytest

from rl_assets.analysis.audit import audit_rows, report
from rl_assets.analysis.audit.result import LearningAudit
from support.audit_synth import rows_for, tagged, wrong


def full_credit_only(rows: list[dict]) -> list[dict]:
    """The rows as an older evaluation recorded them: 1 for a fully right answer, else 0."""
    return [dict(r, reward=float(r["reward"] >= 1.0)) for r in rows]


@pytest.fixture(scope="module")
def appended_zero():
    """basic_arithmetic, wrong before; after RL every answer is the right one with a "0" appended.
    The installed scorer gives it partial credit (the oracle is a substring: len(oracle)/len(answer)),
    the recorded full-credit-only scores give 0 on both sides."""
    before = full_credit_only(rows_for("basic_arithmetic", 20, lambda i, e: tagged(wrong(e))))
    after = full_credit_only(rows_for("basic_arithmetic", 20, lambda i, e: tagged(e["answer"] + "0")))
    (row,), _ = audit_rows(before, after, n_boot=500)
    return row


def test_both_rulers_side_by_side(appended_zero):
    ru = appended_zero["rulers"]
    assert ru["label_ruler"] == "re-scored" and "only a scorer the audit can run" in ru["why"]
    assert ru["recorded"]["reward_before"] == 0.0 and ru["recorded"]["reward_after"] == 0.0
    assert ru["re-scored"]["reward_before"] == 0.0 and ru["re-scored"]["reward_after"] > 0.5
    assert (
        ru["re-scored"]["scorer"].startswith("reasoning-gym ")
        and "basic_arithmetic.score_answer" in ru["re-scored"]["scorer"]
    )
    assert ru["recorded"]["scorer"] == (
        "as recorded by the source; full credit only (1 when the installed "
        "scorer gives 1.0, else 0) reproduces all 40 recorded scores"
    )
    assert ru["disagreeing_attempts"] == {"before": 0, "before_attempts": 20, "after": 20, "after_attempts": 20}
    assert appended_zero["recorded_reward_mismatches"] == {"before": 0, "after": 20}


def test_a_label_that_flips_with_the_ruler_is_flagged(appended_zero):
    ru = appended_zero["rulers"]
    assert appended_zero["label"] == ru["re-scored"]["label"] == "real skill"
    assert ru["recorded"]["label"] == "no change"
    assert ru["depends_on_ruler"] is True and ru["compared_on"] == "all rules"
    assert ru["flag"] == (
        'label depends on the ruler: "real skill" re-scored, "no change" recorded (compared on all rules)'
    )


def test_report_and_check_name_the_family(appended_zero):
    out = report.build_report([dict(appended_zero)])
    assert out["ruler_dependent"] == ["basic_arithmetic"]
    md = report.render_markdown(out, "org/m")
    assert "**real skill** ⚠ depends on the ruler" in md and "## Two rulers" in md
    assert "| basic_arithmetic | re-scored | 0.000 → 0.000 [+0.000, +0.000] | no change |" in md
    check = LearningAudit({"rows": out["rows"]}, audit=out).rulers_agree()
    assert not check.passed and check.warn
    assert check.description.startswith('label depends on the ruler: "real skill" re-scored')
    assert check.metadata["ruler_dependent"] == "basic_arithmetic"


def test_recorded_values_no_rule_reproduces_compare_on_the_reward_rules_only():
    before = [dict(r, reward=0.5) for r in rows_for("chain_sum", 20, lambda i, e: tagged(wrong(e)))]
    after = [dict(r, reward=0.5) for r in rows_for("chain_sum", 20, lambda i, e: tagged(e["answer"]))]
    (row,), _ = audit_rows(before, after, n_boot=500)
    ru = row["rulers"]
    assert ru["recorded"]["scorer"] == (
        "as recorded by the source (values only: no candidate rule reproduces every one)"
    )
    assert ru["recorded"]["grades_new_answers"] is False
    assert (ru["recorded"]["reward_before"], ru["recorded"]["reward_after"]) == (0.5, 0.5)
    assert ru["recorded"]["label"] == "no change" and row["label"] == "real skill"
    assert ru["compared_on"].startswith("the reward-change rules only")
    assert ru["depends_on_ruler"] is True


def test_recorded_scores_equal_to_the_re_score_are_one_ruler_measured_once():
    rows = rows_for("leg_counting", 12, lambda i, e: tagged(e["answer"] if i % 2 else wrong(e)))
    (row,), _ = audit_rows(rows, rows, n_boot=200)
    ru = row["rulers"]
    assert ru["recorded"]["scorer"].endswith("the installed scorer itself reproduces all 24 recorded scores")
    assert {k: v for k, v in ru["recorded"].items() if k != "scorer"} == {
        k: v for k, v in ru["re-scored"].items() if k != "scorer"
    }
    assert ru["depends_on_ruler"] is False and ru["flag"] is None


def test_a_family_without_a_scorer_has_one_ruler_and_no_flag():
    rows = [dict(r, task_config=None, task_index=None) for r in rows_for("chain_sum", 10, lambda i, e: tagged("1"))]
    (row,), _ = audit_rows(rows, rows, n_boot=200)
    ru = row["rulers"]
    assert ru["label_ruler"] == "recorded" and ru["re-scored"] is None
    assert ru["why"] == row["scorer"] and "traces carry no generator config" in ru["why"]
    assert ru["depends_on_ruler"] is None and ru["disagreeing_attempts"] is None
    out = report.build_report([row])
    check = LearningAudit({"rows": out["rows"]}, audit=out).rulers_agree()
    assert check.passed and check.description == "one ruler only (no family could be re-scored): nothing to cross-check"
    assert check.metadata["recorded_ruler_only"] == "chain_sum"
    assert "| chain_sum | recorded |" in report.rulers_table(out["rows"])


def test_rescoring_agrees_with_recorded_rewards_and_counts_disagreements():
    before = rows_for("chain_sum", 10, lambda i, e: tagged(e["answer"]))
    after = [dict(r, reward=0.0) if r["task_index"] < 2 else r for r in before]  # two tampered
    (row,), _ = audit_rows(before, after, n_boot=100)
    assert row["recorded_reward_mismatches"] == {"before": 0, "after": 2}
    assert row["reward_after"] == 1.0  # the family's own scorer is the ruler, not the recorded value
