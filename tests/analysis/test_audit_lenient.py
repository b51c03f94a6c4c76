"""Lenient answer reading and the trivial-strategy registry."""

from __future__ import annotations

import json

import pytest
import reasoning_gym

from rl_assets.analysis.audit import strategies
from rl_assets.analysis.audit.lenient import (
    extract_lenient,
    last_assistant_message,
    lenient_score,
    normalize_answer,
)


@pytest.mark.parametrize(
    "response, expected",
    [
        ("<answer>3</answer> then <answer> 4 </answer>", "4"),  # the last tag, like reasoning-gym
        ("first 12, then 1,234 total", "1,234"),  # grouped number stays one number
        ("The words are:\nbanana, apple\n", "banana, apple"),  # no tag, no number -> last line
        ("   ", None),
        (None, None),
    ],
)
def test_extract_lenient(response, expected):
    assert extract_lenient(response) == expected


def test_normalize_answer():
    assert normalize_answer(" 1,234 ") == "1234"
    assert normalize_answer("Apple ,banana,  Cherry") == "apple, banana, cherry"
    assert normalize_answer(None) == ""


def test_last_assistant_message_takes_the_last_one():
    conv = json.dumps(
        [{"role": "assistant", "content": "a"}, {"role": "user", "content": "u"}, {"role": "assistant", "content": "b"}]
    )
    assert last_assistant_message(conv) == "b"
    assert last_assistant_message("not json") is None


def test_lenient_score_never_below_strict_and_finds_untagged_numbers():
    ds = reasoning_gym.create_dataset("chain_sum", seed=1, size=1)
    entry = ds[0]
    score = lambda a: ds.score_answer(a, entry)  # noqa: E731
    assert lenient_score(score, 0.0, f"so it is {entry['answer']}.", None) == 1.0
    assert lenient_score(score, 1.0, "no idea", entry["answer"]) == 1.0


def test_lenient_reads_an_untagged_last_line_and_keeps_its_case():
    ds = reasoning_gym.create_dataset("word_sorting", seed=3, size=1)
    entry = ds[0]
    assert entry["answer"] != entry["answer"].lower()  # the check below needs a cased answer
    response = f"Sorting by ASCII value.\n{entry['answer']}"
    score = lambda a: ds.score_answer(a, entry)  # noqa: E731
    assert score(None) == 0.0  # strictly: no answer tag, nothing to score
    assert lenient_score(score, 0.0, response, None) == 1.0


def test_registry_adding_a_strategy_is_one_decorated_function(monkeypatch):
    monkeypatch.setattr(strategies, "STRATEGIES", dict(strategies.STRATEGIES))

    @strategy_deco("always answer 42", applies_to=lambda e: True)
    def forty_two(entry, ctx):
        return "42"

    assert strategies.STRATEGIES["always answer 42"].answer({}, strategies.StrategyContext()) == "42"
    with pytest.raises(ValueError, match="registered twice"):
        strategy_deco("always answer 42")(forty_two)


def strategy_deco(*args, **kwargs):
    return strategies.strategy(*args, **kwargs)


def test_seed_strategies_use_entry_metadata():
    logic = reasoning_gym.create_dataset("propositional_logic", seed=5, size=1)[0]
    words = reasoning_gym.create_dataset("word_sorting", seed=5, size=1)[0]
    ctx = strategies.StrategyContext()
    names = {s.name for s in strategies.applicable([logic], ctx)}
    assert "join the premises with ∧" in names and "always answer 1" not in names
    joined = strategies.STRATEGIES["join the premises with ∧"].answer(logic, ctx)
    assert joined.count(" ∧ ") == len(logic["metadata"]["premises"]) - 1
    unsorted = strategies.STRATEGIES["repeat the input words unsorted"].answer(words, ctx)
    assert unsorted == ", ".join(words["metadata"]["original_words"])


def test_post_mode_needs_a_repeated_answer():
    assert strategies.StrategyContext(("7", "8", "9")).post_mode is None  # all distinct
    assert strategies.StrategyContext(("B, a", "b,a", "c")).post_mode == "B, a"  # compared normalized
