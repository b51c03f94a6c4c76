"""The demo world end to end through the Q2 assets: parsed logs and attribution match ground truth."""

import json

import pytest

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.settings_resource import AnalysisSettings
from rl_assets import store
from rl_assets.store import report_dir
from support.dagster_run import materialize_partition

build_world = pytest.importorskip("rl_assets.demo").build_world


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    mp = pytest.MonkeyPatch()
    mp.setenv("RLDELTA_HOME", str(home))
    world = build_world(home)
    yield world, json.loads(world.ground_truth_path.read_text())
    mp.undo()


def materialize(model: str):
    from rl_assets.assets.checkpoint import checkpoint
    from rl_assets.assets.q2_rl_temporal import rl_temporal, rl_traces
    from rl_assets.assets.q2_training import training_logs, training_metrics

    result = materialize_partition(
        [checkpoint, training_logs, training_metrics, rl_traces, rl_temporal],
        model,
        resources={"hub": HubResource(), "settings": AnalysisSettings(n_boot=500), "io_manager": RlDeltaIOManager()},
    )
    assert result.success
    return {k: result.output_for_node(k) for k in ("training_logs", "training_metrics", "rl_traces", "rl_temporal")}


@pytest.mark.parametrize("which", [0, 1])
def test_demo_training_logs_match_ground_truth(demo, which):
    world, truth = demo
    model = sorted(truth["training_logs"])[which]
    gt = truth["training_logs"][model]
    out = materialize(model)
    assert out["training_logs"].training_logs_revision
    tm = out["training_metrics"]
    report = json.loads((report_dir(model) / "Q2_training_metrics" / "report.json").read_text())
    steps = store.read_table(tm.steps_table).to_pandas().set_index("step")
    assert len(steps) == gt["unique_train_steps"] and steps.index.max() == gt["last_step"]
    assert report["duplicates"]["steps"] == gt["duplicate_steps"]
    assert report["malformed"]["count"] == gt["malformed_lines"] + gt["truncated_lines"]
    # the ledger balances with nothing left unread, and names exactly the non-finite values the demo planted
    assert report["accounting"]["files"]["failures"] == [] and report["accounting"]["lines"]["duplicate"] == {}
    planted: dict = {}
    for nf in gt["non_finite"]:
        kind = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[nf["value"]]
        planted.setdefault(nf["key"], {})[kind] = planted.get(nf["key"], {}).get(kind, 0) + 1
    assert report["accounting"]["non_finite"] == planted
    assert steps.loc[gt["last_step"], "reward"] == pytest.approx(gt["final"]["reward/avg_raw_reward"])
    assert steps.loc[gt["last_step"], "entropy"] == pytest.approx(gt["final"]["policy/policy_entropy"])
    lw = gt["later_log_wins"]
    assert lw["key"] == "reward/avg_raw_reward"  # legacy logs carry it as avg_raw_rewards: -> canonical reward
    assert steps.loc[lw["step"], "reward"] == pytest.approx(lw["later_log"])
    assert report["trends"]["reward"]["change"] > 0 and report["trends"]["entropy"]["change"] < 0
    assert steps["step_time_utc"].notna().all()
    # the run's W&B summary (alpha has one, beta none) is compared with the parsed final step
    (check,) = report["cross_checks"]
    if gt.get("wandb_summary_matches_final_step"):
        assert check["status"] == "match" and check["step"] == gt["last_step"] and len(check["compared"]) >= 5
    else:
        assert check["status"] == "no_independent_record"


def test_demo_rollout_attribution_names_the_ground_truth_feature(demo):
    world, truth = demo
    model = next(iter(truth["rl_rollouts"]))
    gt = truth["rl_rollouts"][model]
    materialize(model)["rl_temporal"]
    report = json.loads((report_dir(model) / "Q2_rl_temporal" / "report.json").read_text())
    att = report["attribution"]
    assert att["status"] == "ok" and att["reward_rising"]
    feature = gt["attribution"]["feature"]
    named = att["top_features"]
    assert feature in named or feature.rstrip("s") + "_rate" in named, named
    row = next(f for f in att["features"] if f["feature"] == feature)
    assert (row["rho"] < 0) == (gt["attribution"]["direction"] == "negative")
    assert sum(b["n"] for b in report["bins"]) == gt["rows"]
    assert any(b.get("first_step") == 1 for b in report["bins"])  # joined to training steps by time
