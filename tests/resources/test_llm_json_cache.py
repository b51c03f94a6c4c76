"""Tolerant JSON parsing of replies and the durable LLM cache (pure, no server)."""

import pytest

from resources.llm.cache import LLMCache
from resources.llm.json_parse import JSONRepairError, parse_json_loose
from rl_assets.values.llm_types import cache_key


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure!\n```json\n{"a": [1, 2,],}\n```\nHope this helps.', {"a": [1, 2]}),
        ('{"cmd": "grep \\d+ \\\\w file"}', {"cmd": "grep \\d+ \\w file"}),  # invalid \d repaired, \\ kept
        ('```json\n{"a": "cut off fence"}', {"a": "cut off fence"}),
        ('The verdict: {"winner": "B", "why": "line\nbreak"} -- end', {"winner": "B", "why": "line\nbreak"}),
        ('[{"trace_id": "t"}]', [{"trace_id": "t"}]),
    ],
)
def test_parse_json_loose(reply, expected):
    assert parse_json_loose(reply) == expected


@pytest.mark.parametrize("reply", ["", "I prefer trace A.", '{"a": tru'])
def test_unparseable_raises(reply):
    with pytest.raises(JSONRepairError):
        parse_json_loose(reply)


def test_cache_keys_entries_failures_and_corruption(tmp_path):
    k1 = cache_key("gpt-5", "v1", {"b": 1, "a": 2})
    assert k1 == cache_key("gpt-5", "v1", {"a": 2, "b": 1})  # key order irrelevant
    assert len({k1, cache_key("gpt-5", "v2", {"a": 2, "b": 1}), cache_key("gpt-5.1", "v1", {"a": 2, "b": 1})}) == 3
    cache = LLMCache(tmp_path, "judge")
    cache.record_failure(k1, "parse: nope")
    cache.record_failure(k1, "parse: nope again")
    assert cache.get(k1) is None and cache.failure(k1)["attempts"] == 2
    cache.put(k1, {"winner": "A"}, model="gpt-5")
    assert cache.get(k1) == {"winner": "A"} and cache.failure(k1) is None and len(cache) == 1
    assert not list(tmp_path.rglob("*.tmp"))  # atomic writes leave no temp files
    k2 = cache_key("gpt-5", "v1", "other")
    cache.put(k2, 1)
    cache._entry(k2).write_text("{truncated")  # a torn file from some other writer
    assert cache.get(k2) is None and cache.corrupt == 1 and cache.get(k1) == {"winner": "A"}
