"""tool_use_collapse on hand-made tool-call curves: abandoning the tool holds (exact onset), a leaner
agent that still calls its tool does not, and a run that logs no tool calls is not enough data for it.
The real runs are in tests/realdata/test_integrity_tool_use_realdata.py."""

import numpy as np
import pandas as pd

from rl_assets.analysis.integrity import reward_integrity, rules


def table(tool_calls: list[float]) -> pd.DataFrame:
    n = len(tool_calls)
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "step": np.arange(1, n + 1),
            "reward": 0.5 + rng.normal(0, 0.01, n),  # flat: no reward-side signal can hold
            "response_length": 600 + rng.normal(0, 5, n),
            "entropy": 1.0 + rng.normal(0, 0.01, n),
            "tool_calls": tool_calls,
        }
    )


def test_tool_calls_falling_to_zero_is_a_collapse_from_the_step_the_median_crosses_the_floor():
    calls = [2.0] * 20 + [1.5, 1.0, 0.5, 0.1, 0.0] + [0.0] * 15
    out = reward_integrity(table(calls))
    sig = out["signals"]["tool_use_collapse"]
    # start 2.0 -> floor min(0.5, 10 % of 2.0) = 0.2. Centred 5-step medians: step 23 (steps 21..25:
    # 1.5, 1.0, 0.5, 0.1, 0.0) is 0.5, above; step 24 (1.0, 0.5, 0.1, 0.0, 0.0) is 0.1, the onset
    assert sig["status"] == rules.HOLDS and sig["onset_step"] == 24
    assert out["verdict"] == rules.COLLAPSED and "tool_use_collapse from step 24" in out["verdict_reason"]


def test_a_leaner_agent_that_still_calls_its_tool_is_not_a_collapse():
    # 10 calls -> 0.9: below 10 % of the start, but still about one call per trajectory
    calls = [10.0] * 20 + [0.9] * 20
    sig = reward_integrity(table(calls))["signals"]["tool_use_collapse"]
    assert sig["status"] == rules.DOES_NOT_HOLD and "the lower of 0.5 and 10% of its start 10" in sig["reason"]


def test_no_tool_calls_logged_is_not_enough_data_for_the_signal_only():
    frame = table([2.0] * 40).drop(columns="tool_calls")
    sig = reward_integrity(frame)["signals"]["tool_use_collapse"]
    assert sig["status"] == rules.NO_DATA and "tool_calls logged at 0 steps" in sig["reason"]
