"""Cross-model comparison: one pinned benchmark, per-model noise floor, exclusions, refusal to mix."""

import math

import pytest

from rl_assets.analysis.compare.comparison import MixedBenchmarksError, compare, model_row, task_pass_rates
from rl_assets.analysis.stats import mcnemar_exact, noise_floor, paired_bootstrap_arrays


def rates(passes):
    return {f"t{i}": float(p) for i, p in enumerate(passes)}


def test_model_row_paired_change_and_mcnemar():
    base = rates([0] * 10 + [1] * 10)
    post = rates([1] * 8 + [0] * 2 + [1] * 9 + [0])  # 8 newly passing, 1 newly failing
    row = model_row("o/a-8B", base, post)
    assert row["n_common_tasks"] == 20
    assert row["delta"] == pytest.approx((17 - 10) / 20)
    assert row["mcnemar"] == {"newly_failing": 1, "newly_passing": 8, "p": mcnemar_exact(1, 8)}
    # the interval is Q1's task-clustered bootstrap, not a separate normal approximation
    boot = paired_bootstrap_arrays([base[t] for t in sorted(base)], [post[t] for t in sorted(base)])
    assert row["ci95"] == [boot.lo, boot.hi] and row["significant"] == boot.excludes_zero
    assert row["noise_floor"] == pytest.approx(1.96 * math.sqrt(2 * 0.5 * 0.5 / 20))


def test_too_few_common_tasks_is_not_ranked():
    row = model_row("o/b-8B", rates([1, 0, 1]), rates([1, 1, 1]))
    assert row["status"].startswith("not enough data")
    result = compare({"id": "b", "name": "bench"}, [{**row, "benchmark_id": "b"}], [])
    assert result["ranked"] == [] and result["not_enough_data"][0]["model_id"] == "o/b-8B"


def test_no_common_task_is_not_compared_never_not_enough_data():
    assert model_row("o/a-8B", rates([1, 0]), {})["status"] == "not compared: only in the baseline file"
    assert model_row("o/a-8B", {}, rates([1, 0]))["status"] == "not compared: only in the post-RL file"
    other = {f"u{t}": v for t, v in rates([1, 0]).items()}
    assert model_row("o/a-8B", rates([1, 0]), other)["status"] == "not compared: no task in common"


def test_a_small_model_is_judged_against_its_own_noise_floor():
    # A big model with no change must not lend its tight floor to a 6-task model with one flip.
    big = {**model_row("o/big-8B", rates([0, 1] * 250), rates([0, 1] * 250)), "benchmark_id": "b"}
    small = {**model_row("o/small-8B", rates([0, 1, 0, 1, 0, 1]), rates([1, 1, 0, 1, 0, 1])), "benchmark_id": "b"}
    result = compare({"id": "b", "name": "bench"}, [big, small], [{"model_id": "o/c-8B", "reason": "no pair"}])
    ranked = {r["model_id"]: r for r in result["ranked"]}
    assert ranked["o/small-8B"]["noise_floor"] > ranked["o/big-8B"]["noise_floor"]
    assert ranked["o/small-8B"]["above_noise_floor"] is False and not ranked["o/small-8B"]["significant"]
    assert result["excluded"][0]["model_id"] == "o/c-8B"


def test_a_large_real_gain_is_beyond_the_floor_and_significant():
    row = model_row("o/good-8B", rates([0] * 30 + [1] * 30), rates([1] * 55 + [0] * 5))
    assert row["significant"] and row["above_noise_floor"]


def test_refuses_to_rank_across_benchmarks():
    base = rates([0, 1] * 5)
    rows = [
        {**model_row("o/a-8B", base, base), "benchmark_id": "b"},
        {**model_row("o/b-8B", base, base), "benchmark_id": "other"},
    ]
    with pytest.raises(MixedBenchmarksError, match="refusing to rank"):
        compare({"id": "b", "name": "bench"}, rows, [])


def test_noise_floor_edges_and_infra_errors():
    assert math.isnan(noise_floor(0.0, 10)) and math.isnan(noise_floor(0.5, 0))
    rows = [
        {"task_id": "t1", "passed": True, "is_infra_error": False},
        {"task_id": "t1", "passed": False, "is_infra_error": True},
        {"task_id": "t2", "passed": False, "is_infra_error": False},
    ]
    assert task_pass_rates(rows) == {"t1": 1.0, "t2": 0.0}
