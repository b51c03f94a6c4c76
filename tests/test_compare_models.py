"""Cross-model comparison: one pinned benchmark, noise floor, exclusions, refusal to mix."""

import pytest

from rl_assets.analysis.comparison import MixedBenchmarksError, compare, model_row, task_pass_rates
from rl_assets.analysis.stats import mcnemar_exact


def rates(passes):
    return {f"t{i}": float(p) for i, p in enumerate(passes)}


def test_model_row_paired_change_and_mcnemar():
    base = rates([0] * 10 + [1] * 10)
    post = rates([1] * 8 + [0] * 2 + [1] * 9 + [0])  # 8 newly passing, 1 newly failing
    row = model_row("o/a-8B", base, post)
    assert row["n_common_tasks"] == 20
    assert row["delta"] == pytest.approx((17 - 10) / 20)
    assert row["mcnemar"] == {"newly_failing": 1, "newly_passing": 8, "p": mcnemar_exact(1, 8)}
    assert row["ci95"][0] < row["delta"] < row["ci95"][1]


def test_too_few_common_tasks_is_not_ranked():
    row = model_row("o/b-8B", rates([1, 0, 1]), rates([1, 1, 1]))
    assert row["status"].startswith("not enough data")
    result = compare({"id": "b", "name": "bench"}, [{**row, "benchmark_id": "b"}], [])
    assert result["ranked"] == [] and result["not_enough_data"][0]["model_id"] == "o/b-8B"


def test_ranking_noise_floor_and_exclusions():
    base = rates([0, 1] * 15)
    big = {**model_row("o/big-8B", base, rates([1] * 30)), "benchmark_id": "b"}
    small = {**model_row("o/small-8B", base, rates([1, 1] + [0, 1] * 14)), "benchmark_id": "b"}
    result = compare({"id": "b", "name": "bench"}, [small, big], [{"model_id": "o/c-8B", "reason": "no pair"}])
    assert [r["model_id"] for r in result["ranked"]] == ["o/big-8B", "o/small-8B"]
    assert result["ranked"][0]["above_noise_floor"] is True and result["ranked"][1]["above_noise_floor"] is False
    floor = result["noise_floor"]
    assert floor["half_width_95"] == pytest.approx(1.96 * (2 * 0.5 * 0.5 / 30) ** 0.5)
    assert floor["half_width_95"] < floor["mde_80_power"] < 1 and result["excluded"][0]["model_id"] == "o/c-8B"


def test_refuses_to_rank_across_benchmarks():
    base = rates([0, 1] * 5)
    rows = [{**model_row("o/a-8B", base, base), "benchmark_id": "b"}, {**model_row("o/b-8B", base, base), "benchmark_id": "other"}]
    with pytest.raises(MixedBenchmarksError, match="refusing to rank"):
        compare({"id": "b", "name": "bench"}, rows, [])


def test_task_pass_rates_drop_infra_errors():
    rows = [
        {"task_id": "t1", "passed": True, "is_infra_error": False},
        {"task_id": "t1", "passed": False, "is_infra_error": True},
        {"task_id": "t2", "passed": False, "is_infra_error": False},
    ]
    assert task_pass_rates(rows) == {"t1": 1.0, "t2": 0.0}
