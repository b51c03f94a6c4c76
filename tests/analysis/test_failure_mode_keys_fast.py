"""failure_modes' per-row work has fast paths (orjson parses the stored conversation, orjson escapes a
long transcript for the cache key); each must give exactly what the plain standard-library code
gives, or a cache key / prompt would change. Held equal here on varied values: unicode, control
characters, lone surrogates, NaN/Infinity, integers past 64 bits, floats, odd shapes, bad JSON."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any
from unittest.mock import patch

import pytest

from rl_assets.analysis.judge import prompts
from rl_assets.analysis.judge.prompts import render_conversation
from rl_assets.analysis.q1.failure_modes import item_inputs
from rl_assets.values import llm_types
from rl_assets.values.llm_types import cache_key, content_hash

ALPHABET = (
    'abc XYZ 019 \n\t\r\b\f\x00\x01\x1f\x7f "\\ / é ß ı İ ﬁ 中文 \u2028\u2029 \ufeff 😀 𝔘 <think> ``` '
    "Traceback (most recent call last) ' {} [] :,"
)


def reference_hash(inputs: Any) -> str:
    blob = json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def reference_render(conversation: str | None, budget: int) -> str:
    """render_conversation with its parse as it was before the fast path: the standard library's json.loads."""
    with patch.object(prompts, "_parse", json.loads):
        return render_conversation(conversation, budget)


def text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(n))


ODD_VALUES = [
    None,
    True,
    0,
    -0.0,
    1.5,
    1e300,
    float("nan"),
    float("inf"),
    2**64,
    -(2**63) - 1,
    2**200,
    18446744073709551615,
    [1, 2.5, {"x": 2**70}],
    {"b": 1, "a": [None, "é"]},
    "",
]


@pytest.mark.parametrize("seed", range(40))
def test_content_hash_equals_json_dumps_on_varied_inputs(seed):
    rng = random.Random(seed)
    inputs: dict[str, Any] = {
        "trace_id": text(rng, 16),
        "transcript": text(rng, rng.choice([0, 100, 2047, 2048, 5000, 25000])),
        "z_other_long": text(rng, rng.choice([10, 3000])),
        "é_key": rng.choice(ODD_VALUES),
        "reward": rng.choice(ODD_VALUES),
        "nested": {"k": text(rng, 3000), "a": rng.choice(ODD_VALUES)},
    }
    assert llm_types._canonical_json(inputs) == json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)
    assert content_hash(inputs) == reference_hash(inputs)


def test_content_hash_every_character_escaped_alike():
    chars = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    inputs = {"transcript": chars, "n": 1}
    assert content_hash(inputs) == reference_hash(inputs)


def test_content_hash_odd_shapes_and_lone_surrogates():
    long = "x" * 3000
    for inputs in (
        {"a": long, 1: "int key"},  # json.dumps' own error for mixed key types (sorting fails)
        {"t": long + "\ud800"},  # json.dumps writes it; the encode() refuses it, as before
        {"t": long, "d": __import__("datetime").date(2026, 1, 2)},  # default=str
        [long, {"b": 1, "a": 2}],
        long,
        {},
    ):
        try:
            expected: Any = reference_hash(inputs)
        except Exception as exc:  # the reference fails: the fast path fails the same way
            with pytest.raises(type(exc)):
                content_hash(inputs)
        else:
            assert content_hash(inputs) == expected


def conversation(rng: random.Random) -> str:
    messages: list[Any] = []
    for _ in range(rng.randint(0, 12)):
        m: Any = {"role": rng.choice(["user", "assistant", "tool", "system"])}
        m["content"] = text(rng, rng.randint(0, 400)) if rng.random() < 0.8 else rng.choice(ODD_VALUES)
        if rng.random() < 0.3:
            m["tool_calls"] = [{"function": {"name": "bash", "arguments": {"n": rng.choice(ODD_VALUES)}}}]
        if rng.random() < 0.1:
            m["role"] = rng.choice(ODD_VALUES)
        if rng.random() < 0.05:
            m = rng.choice(ODD_VALUES)  # a non-message element
        messages.append(m)
    return json.dumps(messages, ensure_ascii=rng.random() < 0.5)  # NaN/Infinity/big ints written as Python does


@pytest.mark.parametrize("seed", range(60))
def test_render_equals_stdlib_parse(seed):
    rng = random.Random(1000 + seed)
    conv = conversation(rng)
    for budget in (50, 2000, 20000):
        assert render_conversation(conv, budget) == reference_render(conv, budget)


@pytest.mark.parametrize(
    "conv",
    [
        None,
        "",
        "not json",
        "[1, 2",
        "\ufeff[]",
        "NaN",
        '[{"role": "user", "content": NaN}]',
        '[{"role": "user", "content": 1e400}]',
        '[{"role": "user", "content": "\\ud83d"}]',
        '[{"role": 123456789012345678901234567890, "content": "x"}]',
        '[{"role": "user", "content": [18446744073709551616, -9223372036854775809]}]',
        '[{"role": "a", "content": "x", "tool_calls": [{"n": 99999999999999999999999}]}]',
        '[{"role": "a", "content": "x", "tool_calls": [{"n": 0.1}], "tool_calls": []}]',
        '{"role": "user"}',
        '[{"a": 1, "a": 2, "role": "user", "role": "tool", "content": "dup keys"}]',
        "[" * 300 + "]" * 300,
        '[{"role": "user", "content": ' + "[" * 400 + "]" * 400 + "}]",
    ],
)
def test_render_edge_cases(conv):
    for budget in (10, 20000):
        assert render_conversation(conv, budget) == reference_render(conv, budget)


def test_fast_parse_is_used_for_plain_rows_and_not_for_floats(monkeypatch):
    """The fast path is taken (else this test proves nothing) and refused where floats are rendered."""
    calls = []
    real = prompts.json.loads
    monkeypatch.setattr(prompts.json, "loads", lambda s: calls.append(s) or real(s))
    prompts._parse('[{"role": "user", "content": "hi", "tool_calls": [{"name": "ls"}], "x": 1.5}]')
    assert calls == []
    prompts._parse('[{"role": "user", "content": "hi", "tool_calls": [{"n": 1e19}]}]')
    assert len(calls) == 1


def test_failure_mode_cache_key_unchanged_on_a_real_shaped_row():
    rng = random.Random(7)
    row = {
        "trace_id": "ab" * 8,
        "task_id": "task-1",
        "reward": 0.0,
        "passed": False,
        "error_type": None,
        "is_infra_error": False,
        "n_turns": 23,
        "tool_errors": 2.0,
        "conversation": json.dumps([{"role": "user", "content": text(rng, 30000)}]),
    }
    inputs = item_inputs(row, 20000)
    assert len(inputs["transcript"]) > llm_types.LONG_TEXT
    expected = hashlib.sha256(f"m|failure-modes-v1|{reference_hash(inputs)}".encode()).hexdigest()
    assert cache_key("m", "failure-modes-v1", inputs) == expected
