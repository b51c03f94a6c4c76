"""gen_settings as the pairing report reads it: JSON object text or a dict is the settings; any
other value is reported as unreadable settings, never an exception and never silently dropped."""

from __future__ import annotations

import pytest

from rl_assets.analysis.pairing.settings import NOT_RECORDED, settings_differences


def _diff(before, after):
    b = [{"gen_settings": v} for v in before]
    a = [{"gen_settings": v} for v in after]
    keys_b, keys_a = [f"t{i}" for i in range(len(b))], [f"t{i}" for i in range(len(a))]
    return settings_differences(b, a, keys_b, keys_a)


def test_a_dict_is_read_as_the_settings():
    assert _diff([{"temperature": 0.6, "max_tokens": 2048}], ['{"temperature": 1.0, "max_tokens": 2048}']) == [
        {"setting": "temperature", "before": "0.6", "after": "1.0"}
    ]
    assert _diff([{"temperature": 0.6}], ['{"temperature": 0.6}']) == []  # the same settings, either shape


@pytest.mark.parametrize(
    "value, shown",
    [
        (5, "unreadable: '5'"),
        (0.7, "unreadable: '0.7'"),
        (["temperature", 0.6], "unreadable: \"['temperature', 0.6]\""),
        ("temperature=0.6", "unreadable: 'temperature=0.6'"),  # text, not JSON
        ("[0.6, 2048]", "unreadable: '[0.6, 2048]'"),  # JSON, not an object
    ],
)
def test_a_value_that_is_not_settings_is_reported_unreadable(value, shown):
    assert _diff([value], ['{"temperature": 0.6}']) == [
        {"setting": "gen_settings", "before": shown, "after": NOT_RECORDED},
        {"setting": "temperature", "before": NOT_RECORDED, "after": "0.6"},
    ]


@pytest.mark.parametrize("value", [None, "", "null", {}])
def test_absent_settings_are_not_recorded(value):
    assert _diff([value], [None]) == []
