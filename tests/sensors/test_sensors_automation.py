"""What a new training_logs/ upload recomputes: Q2 and what depends on it, never Q1."""

import dagster as dg

from rl_assets.definitions import defs
from sensors.automation import SENSOR_DRIVEN


def _graph():
    return defs.resolve_asset_graph()


def test_logs_upload_reaches_q2_only():
    graph = _graph()
    below_logs = {k.to_user_string() for k in dg.AssetSelection.assets("training_logs").downstream().resolve(graph)}
    assert {"training_metrics", "rl_temporal"} <= below_logs
    assert not below_logs & {
        "behavioral_delta",
        "judge_verdicts",
        "failure_modes",
        "trace_pairs",
        "solve_rate_by_context",
        "learning_audit",
    }


def test_every_non_root_asset_is_eager_and_roots_and_the_index_are_left_to_sensors():
    graph = _graph()
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        name = key.to_user_string()
        if name in SENSOR_DRIVEN or not node.parent_keys:
            assert node.automation_condition is None, name
        else:
            assert node.automation_condition is not None and node.automation_condition.get_label() == "eager", name
