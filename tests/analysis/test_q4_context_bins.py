"""Q4: disjoint bins, one outcome per row, and an exact mix-shift / within-bin decomposition."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.q4.context_bins import (
    OUTCOMES,
    UNKNOWN,
    assign_bins,
    classify,
    normalize_edges,
    solve_rate_by_context,
)
from rl_assets.analysis.q4.report import render_png
from rl_assets.analysis.render.report_md import jsonable


def frame(lengths, passed, errors=None, peak=True):
    n = len(lengths)
    return pd.DataFrame(
        {
            "task_id": [f"t{i}" for i in range(n)],
            "passed": passed,
            "reward": [1.0 if p else 0.0 for p in passed],
            "error_type": errors or [None] * n,
            "peak_prompt_tokens": lengths if peak else [None] * n,
            "n_tokens": [None if v is None else v * 3 for v in lengths],
        }
    )


def test_every_row_is_in_exactly_one_bin_including_edges_and_unknown():
    rng = np.random.default_rng(0)
    lengths = list(rng.integers(0, 300_000, size=500)) + [0, 8192, 16384, 131072, 10**9, None, -5]
    df = frame(lengths, [False] * len(lengths))
    r = solve_rate_by_context(df, df)
    assert sum(b["n"] for b in r["before"]["bins"]) == len(df)
    bins, _ = assign_bins(df, normalize_edges(None))
    labels = [b["bin"] for b in r["before"]["bins"]]
    assert bins.isin(labels).all() and len(labels) == len(set(labels))
    # edges are [lo, hi): 8192 belongs to 8k–16k, not 0–8k
    assert bins.iloc[501] == "8k–16k" and bins.iloc[500] == "0–8k" and bins.iloc[503] == "≥128k"
    assert (bins.iloc[-2:] == UNKNOWN).all()


def test_outcome_classes_are_exclusive_and_ordered():
    df = pd.DataFrame(
        {
            "passed": [True, False, False, False, False, False, False, True],
            "reward": [1.0, None, None, None, 0.0, 0.5, None, 1.0],
            "error_type": [
                None,
                "AgentTimeoutError",
                "ContextLengthExceededError",
                "RuntimeError",
                None,
                None,
                None,
                "AgentTimeoutError",
            ],
        }
    )
    assert classify(df).tolist() == [
        "solved",
        "timeout",
        "context_exceeded",
        "other_error",
        "zero_reward",
        "partial",
        "unscored",
        "solved",
    ]
    r = solve_rate_by_context(
        df.assign(n_tokens=100, peak_prompt_tokens=None), df.assign(n_tokens=100, peak_prompt_tokens=None)
    )
    first = r["before"]["bins"][0]
    assert sum(first[o]["k"] for o in OUTCOMES) == first["n"] == 8
    assert r["before"]["length_source"] == "n_tokens"


def test_decomposition_is_exact_and_finds_a_pure_mix_shift():
    # Within each bin the solve rate is identical (short 80%, long 20%); RL only moved traces
    # from long to short contexts, so the whole gain must be mix shift.
    before = frame([1000] * 50 + [40000] * 150, [True] * 40 + [False] * 10 + [True] * 30 + [False] * 120)
    after = frame([1000] * 150 + [40000] * 50, [True] * 120 + [False] * 30 + [True] * 10 + [False] * 40)
    r = solve_rate_by_context(before, after)
    dec = r["decomposition"]
    assert dec["total"] == pytest.approx(0.65 - 0.35)
    assert dec["mix_shift"] + dec["within_bin"] == pytest.approx(dec["total"])
    assert dec["within_bin"] == pytest.approx(0.0, abs=1e-12)
    assert dec["mix_shift"] == pytest.approx(0.30)
    assert "mix shift dominates" in r["interpretation"] and "shorter" in r["interpretation"]


def test_decomposition_handles_bins_empty_on_one_side():
    before = frame([1000] * 20, [True] * 10 + [False] * 10)
    after = frame([1000] * 10 + [200000] * 10, [True] * 5 + [False] * 5 + [False] * 10)
    dec = solve_rate_by_context(before, after)["decomposition"]
    assert dec["mix_shift"] + dec["within_bin"] == pytest.approx(dec["total"]) == pytest.approx(-0.25)


def test_mixed_length_sources_are_called_out_and_json_png_render():
    before = frame([1000, 20000, 70000] * 10, [True, False, False] * 10)
    after = frame([1000, 20000, 70000] * 10, [True, True, False] * 10, peak=False)
    r = solve_rate_by_context(before, after, edges=[0, 16384, 65536])
    assert r["edges"] == [0, 16384, 65536, None]
    assert "measured differently" in r["interpretation"]
    json.dumps(jsonable(r), allow_nan=False)
    png = render_png(jsonable(r))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_bad_edges_are_rejected():
    with pytest.raises(ValueError, match="strictly increasing"):
        normalize_edges([0, 100, 100])
    assert normalize_edges([100, 50]) == [0.0, 50.0, 100.0, math.inf]


def test_interpretation_says_unchanged_for_equal_and_unknown_for_missing_median_length():
    same = frame([1000, 2000, 3000] * 10, [True, False, False] * 10)
    better = frame([1000, 2000, 3000] * 10, [True, True, False] * 10)
    r = solve_rate_by_context(same, better)
    assert "1,000" not in r["interpretation"] and "2,000 → 2,000 tokens (unchanged)" in r["interpretation"]
    assert "shorter" not in r["interpretation"] and "longer" not in r["interpretation"]
    no_len = lambda df: df.assign(peak_prompt_tokens=None, n_tokens=None)  # noqa: E731
    r = solve_rate_by_context(no_len(same), better)
    assert "unknown → 2,000 tokens (unknown)" in r["interpretation"] and "shorter" not in r["interpretation"]
    r = solve_rate_by_context(no_len(same), no_len(better))
    assert "unknown → unknown tokens (unknown)" in r["interpretation"]
