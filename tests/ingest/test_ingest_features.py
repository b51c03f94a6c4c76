"""Unit tests of the pure feature/token/row helpers (numbers computed from the inputs)."""

from __future__ import annotations

import json
import random

from rl_assets.ingest.features import count_self_corrections, featurize, is_tool_error
from rl_assets.ingest.rows import episode_number, parse_result
from rl_assets.ingest.tokens import REFERENCE_RE, count_tokens, get_counter


def test_regex_v1_fast_counter_equals_reference_definition():
    rng = random.Random(7)
    alphabet = "ab_Z9 \t\n.,;:!?()[]{}<>\"'é—中😀"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert count_tokens(text) == len(REFERENCE_RE.findall(text.encode("utf-8"))), text
    assert count_tokens("def f(x): return x+1") == 10  # def f ( x ) : return x + 1
    assert get_counter(None)[0] == "tokenizer:regex-v1"


def test_result_parsing_conventions():
    assert parse_result("1.0") == (1.0, None)
    assert parse_result(" 0.25 ") == (0.25, None)
    assert parse_result(0) == (0.0, None)
    assert parse_result("AgentTimeoutError") == (None, "AgentTimeoutError")
    assert parse_result(None) == (None, None) and parse_result("null") == (None, None)
    assert episode_number("episode-17") == 17 and episode_number("x") is None


def test_self_correction_is_strict():
    text = "Actually, wait. Hmm. On second thought, let me reconsider. My mistake! Let me try again."
    assert count_self_corrections(text) == 4
    assert count_self_corrections("actually wait hmm let me check") == 0
    assert count_self_corrections("pillet me reconsider") == 0  # word boundary before the phrase


def test_tool_error_patterns():
    assert is_tool_error("Traceback (most recent call last):\n  File x")
    assert is_tool_error("bash: foo: command not found")
    assert is_tool_error("ls: cannot access 'x': No such file or directory")
    assert is_tool_error("output\nValueError: bad value")
    assert is_tool_error("Error: failed")
    assert not is_tool_error("all 3 tests passed; no ValueError raised here")
    assert not is_tool_error("the word Error appears mid line")


def test_text_only_trace_uses_patterns():
    conv = [
        {"role": "user", "content": "task"},
        {
            "role": "assistant",
            "content": "<think>plan it out</think>ok\n<tool_call>\n"
            + json.dumps({"name": "bash", "arguments": {}})
            + "\n</tool_call>\n```py\nx\n```",
        },
        {"role": "user", "content": "New Terminal Output:\nbash: zz: command not found\n\n[HINT FROM TEACHER]: try ls"},
        {"role": "assistant", "content": '{"commands": [{"keystrokes": "ls\\n"}, {"keystrokes": "pwd\\n"}]}'},
        {"role": "user", "content": "New Terminal Output:\nfine\nPrevious response had parsing errors"},
        {"role": "assistant", "content": "stopping"},
    ]
    f = featurize(conv, count_tokens)
    assert f["n_turns"] == 3 and f["n_messages"] == 6
    assert json.loads(f["tool_calls_by_name"]) == {"bash": 1, "bash_command": 2}
    assert (f["tool_responses"], f["tool_errors"], f["tool_error_rate"]) == (2.0, 1.0, 0.5)
    assert f["think_blocks"] == 1.0 and f["think_tokens"] == count_tokens("plan it out")
    assert f["code_fence_blocks"] == 1.0
    assert (f["hint_count"], f["hint_first_turn"], f["parse_error_markers"]) == (1.0, 1, 1.0)
    assert f["premature_stop"] == 1.0  # ends on an agent turn, no completion signal
    agent = [m["content"] for m in conv if m["role"] == "assistant"]
    assert f["assistant_tokens"] == sum(count_tokens(t) for t in agent)
    assert f["n_tokens"] == sum(count_tokens(m["content"]) for m in conv)


def test_structured_trace_ignores_text_patterns_and_copied_context():
    conv = [
        {"role": "user", "content": "New Terminal Output: old copy", "is_copied_context": True},
        {
            "role": "assistant",
            "content": "copied",
            "is_copied_context": True,
            "tool_calls": [{"function": {"name": "x"}}],
        },
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "ignored"}</tool_call>',
            "reasoning_content": "think hard",
            "tool_calls": [{"function": {"name": "bash"}}],
        },
        {"role": "tool", "content": "ok", "exit_code": 2},
        {"role": "assistant", "content": "done", "tool_calls": [{"function": {"name": "mark_task_complete"}}]},
        {"role": "tool", "content": "New Terminal Output: fine"},
    ]
    f = featurize(conv, count_tokens)
    assert f["n_messages"] == 4 and f["n_turns"] == 2
    assert json.loads(f["tool_calls_by_name"]) == {"bash": 1, "mark_task_complete": 1}
    assert (f["tool_responses"], f["tool_errors"]) == (2.0, 1.0)  # exit code 2 is an error
    assert f["think_blocks"] == 1.0 and f["think_tokens"] == 2.0
    assert f["premature_stop"] == 0.0  # completion call made
    assert featurize([], count_tokens)["premature_stop"] is None


def _random_conversation(rng: random.Random) -> list:
    frags = [
        "hello",
        " world",
        "\n",
        "<think>",
        "</think>",
        "<THINK>",
        "<Thinking>",
        "</thinking>",
        "<tool_call>",
        "</tool_call>",
        "<TOOL_CALL>",
        "<Tool_Call>",
        "ool_call>",
        '{"name": "bash"}',
        '{"name": "submit"}',
        '"name": "x"',
        '"keystrokes"',
        "```",
        '"task_complete": true',
        "Traceback (most recent call last)",
        "ValueError: bad",
        "Error: x",
        "an Error here",
        "command not found",
        "No Such File Or Directory",
        "New Terminal Output:",
        "Previous response had parsing errors",
        "[HINT FROM TEACHER]:",
        "let me reconsider",
        "On second thought",
        "my mistake",
        "İ",
        "ı",
        "K",
        "é",
        "😀",
        "Σ",
    ]
    ascii_only = rng.random() < 0.5  # the str.find fast paths apply to ASCII (and length-preserving) text
    pool = [f for f in frags if f.isascii()] if ascii_only else frags
    conv = []
    for _ in range(rng.randint(0, 12)):
        m = {
            "role": rng.choice(["assistant", "user", "tool", "system", "gpt", None]),
            "content": "".join(rng.choice(pool) for _ in range(rng.randint(0, 10))),
        }
        if rng.random() < 0.1:
            m["tool_calls"] = [{"function": {"name": rng.choice(["bash", "submit", ""])}}]
        if rng.random() < 0.1:
            m["reasoning_content"] = rng.choice(["", "let me reconsider <think>x"])
        if rng.random() < 0.05:
            m["exit_code"] = rng.choice([0, 1, None])
        if rng.random() < 0.05:
            m["is_copied_context"] = True
        conv.append(m)
    return conv


def test_vectorised_featurize_equals_reference_loop():
    from rl_assets.ingest.features import featurize_reference

    rng = random.Random(11)
    per_piece = lambda s: len(s.split()) * 3 + len(s) % 5 if s else 0  # not additive over joins
    for _ in range(3000):
        conv = _random_conversation(rng)
        for counter in (count_tokens, per_piece):
            assert featurize(conv, counter) == featurize_reference(conv, counter), conv
    # case-folding corners of the IGNORECASE tag regexes that str.lower() does not share
    for text in (
        "<think>x</think> <thınk>plan more</thınk> done",
        "<think>a <THİNK>b</think>",
        "<think>K</thinK> y",
        '<tool_call>{"name": "a"}</TOOL_CALL><Tool_Call>{"name": "b"}',
        "<think>unclosed\n<think>",
    ):
        conv = [{"role": "assistant", "content": text}, {"role": "assistant", "content": "<think>z"}]
        assert featurize(conv, count_tokens) == featurize_reference(conv, count_tokens), text
