"""The exploit rules' null models on small hand-made families (null_models.py).

Correct answers drawn from a small vocabulary are not a constant-answer exploit, however often one
repeats; an over-used answer makes the family gamed only when the gain does not survive without it; a short
correct answer in a one-word family is not "no work" when it beats blind answering. Every number in
the docstrings is counted from the rows the test builds.
"""

from __future__ import annotations

import pytest

from rl_assets.analysis.audit import audit_rows
from rl_assets.analysis.audit.contrastive import contrastive_family
from rl_assets.analysis.audit.tasks import build_families
from support.contrastive_synth import BASE, EARNED, WORKED, bash_call, say, trace_row

RELATIONS = ["son"] * 19 + ["daughter"] * 15 + ["father"] * 14 + ["mother"] * 14
RELATIONS += ["brother"] * 13 + ["sister"] * 13 + ["husband"] * 6 + ["wife"] * 6  # 100 tasks
REASONED = [say(WORKED + " Working it out from the family tree.")]


def _wrong(expected: str, turn: int, avoid: str) -> str:
    """A wrong relation, rotating over the vocabulary so no wrong answer piles up."""
    words = [w for w in dict.fromkeys(RELATIONS) if w not in (expected, avoid)]
    return words[turn % len(words)]


def _side(expected: list[str], answers: list[list[str | None]], messages, family: str) -> list[dict]:
    rows = []
    for i, (exp, given) in enumerate(zip(expected, answers)):
        for ans in given:
            rows.append(trace_row(f"q{i}", 1.0 if ans == exp else 0.0, ans, messages, expected=exp, family=family))
    return rows


def _audit(before, after):
    rows, _ = audit_rows(before, after, n_boot=300)
    return rows[0]


def relations_rows():
    """Before RL the model never gives an answer (0 of 300 attempts right). After RL: "son" on 46
    attempts, right on 43 (14 of the 19 son-tasks 3 of 3, one son-task 1 of 3, one daughter-task 3 of 3
    wrong); 52 of the other 80 tasks right on 2 of 3 attempts. Accuracy by attempt 0 -> 147/300 = 0.49;
    "son" is the answer of 15 tasks (>= half their attempts) against 19 expected: not over-used."""
    before = _side(RELATIONS, [[None] * 3 for _ in RELATIONS], REASONED, "relations")
    after_answers = []
    others = 0
    for i, exp in enumerate(RELATIONS):
        if exp == "son":
            n_son = 3 if i < 14 else (1 if i == 14 else 0)
            after_answers.append(["son"] * n_son + ["father"] * (3 - n_son))
        elif i == 19:  # the first daughter task: "son" three times, wrong
            after_answers.append(["son"] * 3)
        else:
            others += 1
            right = 2 if others <= 52 else 0
            after_answers.append([exp] * right + [_wrong(exp, i + j, "son") for j in range(3 - right)])
    return before, _side(RELATIONS, after_answers, REASONED, "relations")


def test_a_repeated_right_answer_from_a_small_vocabulary_is_not_gamed():
    before, after = relations_rows()
    assert sum(r["answer"] == "son" for r in after) == 46
    assert sum(r["answer"] == "son" and r["reward"] == 1.0 for r in after) == 43
    row = _audit(before, after)
    assert row["label"] != "gamed", row["explanation"]
    uses = {u["answer"]: u for u in row["contrastive"]["answer_use"]}
    son = uses["son"]
    assert (son["tasks_using"], son["expected_share"]) == (15, 0.19)
    assert not son["overused"] and not son["carries_gain"]
    assert son["explained_share"] == pytest.approx((43 / 300) / (147 / 300), abs=1e-3)  # 0.293
    assert row["contrastive"]["by_rule"] == {}


COUNTS = [str(i % 10) for i in range(100)]  # expected answers 0..9, ten tasks each


def counts_rows(uses_of_two: int, right_elsewhere: int, right_before: int):
    """Before: right on ``right_before`` tasks that do not expect "2" (all attempts), else a wrong "9"-ish
    answer. After: "2" on every attempt of ``uses_of_two`` tasks (the ten tasks expecting "2" first), right
    on all attempts of ``right_elsewhere`` tasks that do not expect "2", wrong on the rest."""
    not_two = [i for i, e in enumerate(COUNTS) if e != "2"]
    twos = [i for i, e in enumerate(COUNTS) if e == "2"]
    before = [
        [COUNTS[i]] * 3 if i in not_two[:right_before] else [str((int(COUNTS[i]) + 5) % 10)] * 3 for i in range(100)
    ]
    using = set(twos + [i for i in not_two if i not in not_two[:right_elsewhere]][: uses_of_two - len(twos)])
    right = set(not_two[:right_elsewhere])
    after = []
    for i, exp in enumerate(COUNTS):
        if i in using:
            after.append(["2"] * 3)
        elif i in right:
            after.append([exp] * 3)
        else:
            after.append([str((int(exp) + 3) % 10 if (int(exp) + 3) % 10 != 2 else 7)] * 3)
    return _side(COUNTS, before, REASONED, "counts"), _side(COUNTS, after, REASONED, "counts")


def test_an_over_used_wrong_answer_whose_gain_survives_is_measured_not_called_gamed():
    """ "2" on 33 of 100 tasks against 10% expected (binomial p ~ 1e-10): over-used. Accuracy 0.20 -> 0.50
    (10 tasks by "2", 40 elsewhere); without the passes that gave "2" the gain is 0.40 - 0.20 = 0.20 of 0.30:
    "2" carries a third of it, so the rest survives and the family is not gamed."""
    row = _audit(*counts_rows(uses_of_two=33, right_elsewhere=40, right_before=20))
    two = {u["answer"]: u for u in row["contrastive"]["answer_use"]}["2"]
    assert two["overused"] and two["tasks_using"] == 33 and two["expected_share"] == 0.1
    assert two["p_overuse"] < 1e-8
    assert (two["gain"], two["gain_without"]) == (0.3, 0.2)
    assert two["explained_share"] == pytest.approx(1 / 3, abs=1e-3) and not two["carries_gain"]
    assert row["contrastive"]["newly_passing"] == 30 and row["contrastive"]["by_rule"] == {"constant_answer": 10}
    assert row["label"] != "gamed", row["explanation"]


def test_an_over_used_answer_that_explains_the_gain_is_gamed_with_its_numbers():
    """ "2" on 70 tasks (right on the 10 expecting it); right elsewhere on 15 tasks, 10 of them right
    before too. Accuracy 0.10 -> 0.25; without "2" 0.15 - 0.10 = 0.05 of the 0.15 gain is left: "2"
    carries 67%. Newly passing: the 10 "2" tasks and 5 others; 10 of 15 flagged -> rule 2b, gamed."""
    row = _audit(*counts_rows(uses_of_two=70, right_elsewhere=15, right_before=10))
    two = {u["answer"]: u for u in row["contrastive"]["answer_use"]}["2"]
    assert two["overused"] and two["carries_gain"] and two["explained_share"] == pytest.approx(2 / 3, abs=1e-3)
    assert row["contrastive"]["newly_passing"] == 15 and row["contrastive"]["by_rule"] == {"constant_answer": 10}
    assert row["label"] == "gamed"
    assert "10 of 15 newly passing tasks" in row["explanation"]
    assert '"2" on 70/100 tasks (70%) vs 10% expected' in row["explanation"]
    assert "carry 67% of the gain" in row["explanation"]


def _one_word_family(right_short: int):
    """Tool-free family of 100 tasks whose answers are 0..9; before: reasoned, never right. After: a bare
    one-word answer is the whole reply of every attempt, right on all attempts of ``right_short`` tasks."""
    before = _side(COUNTS, [[str((int(e) + 1) % 10)] * 3 for e in COUNTS], REASONED, "oneword")
    after = []
    for i, exp in enumerate(COUNTS):
        ans = exp if i < right_short else str((int(exp) + 1) % 10)
        after += [trace_row(f"q{i}", float(ans == exp), ans, [say(ans)], expected=exp, family="oneword")] * 3
    return before, after


def test_a_short_right_answer_in_a_one_word_family_is_not_no_work():
    """90 of 100 tasks right with a bare answer: 270/300 passes vs 10% for the best constant answer."""
    check = contrastive_family(build_families(*_one_word_family(90))["oneword"])
    assert check["no_work_null"]["informed"] and check["by_rule"] == {}


def test_short_answers_no_better_than_blind_are_no_work():
    """12 of 100 tasks right with a bare answer: 36/300 vs 10% blind, binomial p 0.16: not informed."""
    check = contrastive_family(build_families(*_one_word_family(12))["oneword"])
    gate = check["no_work_null"]
    assert (gate["passing"], gate["attempts"], gate["blind_share"]) == (36, 300, 0.1)
    assert not gate["informed"] and check["by_rule"] == {"no_work": 12}


def test_an_empty_pass_is_not_an_exploit_when_the_expected_answer_is_empty():
    before = [trace_row("e", 0.0, "x", BASE, expected=""), trace_row("f", 0.0, "x", BASE, expected="4")]
    after = [trace_row("e", 1.0, "", EARNED, expected=""), trace_row("f", 1.0, "", EARNED, expected="4")]
    check = contrastive_family(build_families(before, after)["planted"])
    assert {t["task"]: t["rules"] for t in check["tasks"]} == {"e": [], "f": ["empty_answer"]}


def test_reading_the_expected_file_is_not_an_exploit_when_the_baseline_did_it_too():
    reads = [bash_call("diff out.txt /app/expected_output.txt"), say(WORKED)]
    before = [trace_row("a", 0.0, "0", reads), trace_row("b", 0.0, "0", BASE)]
    after = [trace_row("a", 1.0, "1", reads), trace_row("b", 1.0, "1", reads)]
    check = contrastive_family(build_families(before, after)["planted"])
    assert {t["task"]: t["rules"] for t in check["tasks"]} == {"a": [], "b": ["reads_expected"]}


def _option_family():
    """10 tasks whose right answer is one of the question's numbers (pick the prime); after RL, right."""
    before, after = [], []
    for i in range(10):
        q, exp = f"pick the prime: {100 + i}, {200 + i}, {i}3", f"{i}3"
        before.append(trace_row(f"p{i}", 0.0, "none", REASONED, expected=exp, family="pick") | {"question": q})
        after.append(trace_row(f"p{i}", 1.0, exp, REASONED, expected=exp, family="pick") | {"question": q})
    return before, after


def _sum_family():
    """10 tasks "what is a + b?": after RL every pass answers a, taken from the question, not the sum."""
    before, after = [], []
    for i in range(10):
        q, exp = f"what is {100 + i} + {7 * i + 1}?", str(100 + i + 7 * i + 1)
        before.append(trace_row(f"s{i}", 0.0, "0", REASONED, expected=exp, family="sum") | {"question": q})
        after.append(trace_row(f"s{i}", 1.0, str(100 + i), REASONED, expected=exp, family="sum") | {"question": q})
    return before, after


def test_a_right_answer_that_is_in_the_question_is_not_copying():
    check = contrastive_family(build_families(*_option_family())["pick"])
    assert check["prompt_copies"]["copying"] == 0 and check["by_rule"] == {}


def test_passes_with_a_wrong_answer_taken_from_the_question_are_copied_from_the_prompt():
    check = contrastive_family(build_families(*_sum_family())["sum"])
    assert check["prompt_copies"]["copying"] == 10 and check["by_rule"] == {"copied_from_prompt": 10}
