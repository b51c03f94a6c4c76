"""compute_behavioral_delta on synthetic tables with a planted change in one feature only."""

import json

import pandas as pd
import pyarrow as pa
import pytest

from rl_assets.analysis.q1.behavioral_delta import compute_behavioral_delta
from rl_assets.analysis.render.report_md import jsonable
from rl_assets.schema import FEATURE_COLUMNS, trace_schema
from support.q1_synth import make_side


@pytest.fixture(scope="module")
def planted():
    return compute_behavioral_delta(make_side(1), make_side(2, tool_error_shift=-1.5), n_boot=1000, seed=0)


def test_planted_change_is_flagged_with_direction_and_others_are_not(planted):
    feats = {f["feature"]: f for f in planted["features"]}
    te = feats["tool_errors"]
    assert te["significant"] and te["delta"] < 0
    assert te["lo"] < -1.5 < te["hi"]  # the interval covers the planted shift
    assert te["effect_size"] < -0.3
    assert te["p_holm"] < 0.05
    flagged = [name for name, f in feats.items() if f["significant"]]
    assert flagged == ["tool_errors"], flagged
    assert not feats["think_tokens"]["significant"]
    assert planted["invalid_for_comparison"] is None and planted["common_tasks"] == 60


def test_summary_says_what_changed_first(planted):
    text = " ".join(planted["summary"])
    assert "**tool_errors** decreased" in text
    assert "think_tokens" not in text.split("Nominal only")[0]


def test_result_is_strict_json(planted):
    json.dumps(jsonable(planted), allow_nan=False)


def test_flips_and_mcnemar_match_a_hand_count():
    before = pd.DataFrame(
        {
            "task_id": ["a", "a", "b", "b", "c", "d"],
            "passed": [True, True, False, False, True, False],
            "reward": [1, 1, 0, 0, 1, 0],
        }
    )
    after = pd.DataFrame(
        {
            "task_id": ["a", "a", "b", "b", "c", "d"],
            "passed": [True, False, True, True, False, True],
            "reward": [1, 0, 1, 1, 0, 1],
        }
    )
    r = compute_behavioral_delta(before, after, n_boot=200)
    fl = r["task_flips"]
    # a: 1.0 -> 0.5 still passes (>= 0.5); b, d: fail -> pass; c: pass -> fail
    assert (fl["newly_passing"], fl["newly_failing"], fl["both_pass"]) == (2, 1, 1)
    assert fl["newly_passing_tasks"] == ["b", "d"] and fl["mcnemar_p"] == 1.0
    # four common tasks: too few for an interval, said so instead of a number
    assert r["paired"]["passed"]["not_enough_data"] and "4 common tasks" in r["paired"]["passed"]["reason"]


def test_reward_definitions_and_infra_errors():
    df = pd.DataFrame(
        {
            "task_id": ["a", "b", "c", "d"],
            "reward": [1.0, None, None, 0.5],
            "passed": [True, False, False, False],
            "error_type": [None, "DaytonaError", "AgentTimeoutError", None],
            "is_infra_error": [False, True, False, False],
        }
    )
    side = compute_behavioral_delta(df, df, n_boot=100)["before"]
    assert side["reward_errors_as_zero"]["mean_rows"] == pytest.approx(1.5 / 4)
    assert side["reward_infra_dropped"]["mean_rows"] == pytest.approx(1.5 / 3)
    assert side["n_infra_errors"] == 1 and side["solve_rate"]["rate"] == 0.25
    assert side["error_types"] == {"DaytonaError": 1, "AgentTimeoutError": 1}


def test_disjoint_task_sets_are_invalid_for_comparison():
    r = compute_behavioral_delta(make_side(1, n_tasks=10), make_side(2, n_tasks=10, prefix="u"), n_boot=100)
    assert r["common_tasks"] == 0
    assert "share no task" in r["invalid_for_comparison"]
    assert r["pairing"]["totals"] == {"paired": 0, "only_before": 10, "only_after": 10}
    assert r["pairing"]["near_miss"] is None  # "t3" vs "u3": no stated normalisation pairs them
    assert r["summary"][0].startswith("Not comparable")
    assert "features" not in r


def test_pyarrow_input_groups_and_distribution_shifts():
    b = make_side(1, benchmarks=("x", "y"))
    a = make_side(2, benchmarks=("x", "y"), tool_error_shift=-1.5)
    a["tool_calls_by_name"] = json.dumps({"bash": 1, "python": 3})
    a.loc[a.index[:30], "error_type"] = "AgentTimeoutError"
    to_table = lambda df: pa.Table.from_pandas(df, preserve_index=False)  # noqa: E731
    r = compute_behavioral_delta(to_table(b), to_table(a), n_boot=300)
    assert set(r["groups"]["benchmark"]) == {"x", "y"}
    assert r["groups"]["benchmark"]["x"]["common_tasks"] == 30
    tools = {s["key"]: s for s in r["shifts"]["tool_calls"]}
    assert tools["python"]["shift"] == pytest.approx(0.5) and tools["python"]["ci_excludes_zero"]
    err = r["shifts"]["error_types"][0]
    assert err["key"] == "AgentTimeoutError" and err["after"] == 30 and err["before"] == 0
    assert r["shifts"]["failure_modes"] is None
    assert "task_family" not in r["groups"]  # absent column: no grouping


def test_full_schema_table_is_accepted():
    df = make_side(3, n_tasks=8)
    full = pa.Table.from_pandas(df, preserve_index=False)
    for field in trace_schema():
        if field.name not in full.column_names:
            full = full.append_column(field.name, pa.nulls(len(full), field.type))
    r = compute_behavioral_delta(full, full, n_boot=100)
    # every feature is compared (an empty list must not pass), none changed
    assert [f["feature"] for f in r["features"]] == list(FEATURE_COLUMNS)
    assert all(f["delta"] == 0 and not f["significant"] for f in r["features"])


def test_too_few_common_tasks_says_not_enough_data_not_no_change():
    r = compute_behavioral_delta(make_side(1, n_tasks=2), make_side(2, n_tasks=2), n_boot=200)
    assert any("not enough data to test" in line for line in r["summary"])
    assert not any("No behavioural feature changed" in line for line in r["summary"])
