"""The run lineage recovers the demo job's planted story through the real assets, and flags nothing else.

The demo's rl-gamma job (rl_assets/demo/lineage_job.py) has three checkpoints; by construction a
format fix (chain_sum) is there from the first, a gamed family (letter_counting) from the second
on, and tool errors fall checkpoint by checkpoint; every other feature is equal trace by trace.
Each member is analysed by the assets the lineage reads, then `run_lineage` runs on its `rl_jobs`
partition and reads them through the IO manager, as in `make demo`.
"""

from __future__ import annotations

import json

import dagster as dg
import pytest

from resources import build_resources
from resources.io_manager import RlDeltaIOManager
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.audit import learning_audit
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.failure_modes import failure_modes
from rl_assets.assets.q1_behavioral_delta import behavioral_delta
from rl_assets.assets.q1_llm_judge import judge_verdicts
from rl_assets.assets.q2_rl_temporal import rl_traces
from rl_assets.assets.q2_training import training_logs, training_metrics
from rl_assets.assets.traces import eval_traces
from rl_assets.definitions import run_lineage
from rl_assets.demo import build_world
from support.dagster_run import partition_instance  # a module-scoped fixture cannot take the conftest one

MEMBER_ASSETS = [
    checkpoint,
    eval_pair,
    eval_traces,
    failure_modes,
    behavioral_delta,
    learning_audit,
    judge_verdicts,
    training_logs,
    training_metrics,
    rl_traces,
]


def _resources():
    return {**build_resources(), "settings": AnalysisSettings(n_boot=500), "io_manager": RlDeltaIOManager()}


@pytest.fixture(scope="module")
def lineage(tmp_path_factory):
    home = tmp_path_factory.mktemp("lineage-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLDELTA_HOME", str(home))
        world = build_world(seed=7, scale=0.3)
        truth = json.loads(world.ground_truth_path.read_text())["lineage"]
        members = [m["repo_id"] for m in truth["members"]]
        instance = partition_instance(*members)
        folder = home / "reports" / "runs" / truth["job"]
        # Analysed out of step order on purpose; the lineage is refreshed the way the daemon does it:
        # the run-status sensor sees a member's run end and requests refresh_lineage, which runs here.
        for model in (members[2], members[1]):
            run = dg.materialize(MEMBER_ASSETS, instance=instance, partition_key=model, resources=_resources())
        _, before = _refresh_after(instance, run)
        two = json.loads((folder / "lineage.json").read_text())
        new = dg.materialize(MEMBER_ASSETS, instance=instance, partition_key=members[0], resources=_resources())
        request, result = _refresh_after(instance, new)
        yield {
            "truth": truth,
            "result": result,
            "json": json.loads((folder / "lineage.json").read_text()),
            "folder": folder,
            "instance": instance,
            "home": home,
            "before_new": two,
            "request": request,
            "new_run": new.run_id,
        }


def _refresh_after(instance, member_result):
    """Feed a member's finished run to the lineage sensor and execute the run it requests."""
    from rl_assets.definitions import defs
    from sensors.lineage_sensor import lineage_after_success

    assert member_result.success
    run = instance.get_run_by_id(member_result.run_id)
    ctx = dg.build_run_status_sensor_context(
        sensor_name=lineage_after_success.name,
        dagster_instance=instance,
        dagster_run=run,
        dagster_event=dg.DagsterEvent(event_type_value="PIPELINE_SUCCESS", job_name=run.job_name),
    )
    reaction = lineage_after_success(ctx)
    for add in reaction.dynamic_partitions_requests:
        instance.add_dynamic_partitions(add.partitions_def_name, list(add.partition_keys))
    (request,) = reaction.run_requests
    job = defs.resolve_job_def(request.job_name)
    return request, job.execute_in_process(
        instance=instance,
        partition_key=request.partition_key,
        run_config={"resources": {"settings": {"config": {"n_boot": 500}}}},
    )


def test_a_new_checkpoint_refreshes_the_lineage_through_the_sensor(lineage):
    from rl_assets.jobs.analyze import write_index
    from sensors.lineage_sensor import lineage_after_success

    truth, instance, request = lineage["truth"], lineage["instance"], lineage["request"]
    assert (request.job_name, request.partition_key) == ("refresh_lineage", truth["job"])
    assert request.run_key == f"lineage-after-{lineage['new_run']}"
    assert [m["step"] for m in lineage["before_new"]["members"]] == [10, 20]  # before step 5 was analysed
    assert [m["step"] for m in lineage["json"]["members"]] == [5, 10, 20]  # the new checkpoint came in first
    lineage_run = instance.get_run_by_id(lineage["result"].run_id)
    ctx = dg.build_run_status_sensor_context(
        sensor_name=lineage_after_success.name,
        dagster_instance=instance,
        dagster_run=lineage_run,
        dagster_event=dg.DagsterEvent(event_type_value="PIPELINE_SUCCESS", job_name=lineage_run.job_name),
    )
    indexes = lineage_after_success(ctx)
    assert [(r.job_name, r.partition_key) for r in indexes] == [
        (write_index.name, m["repo_id"]) for m in truth["members"]
    ]


def test_ground_truth_holds_in_the_files(lineage):
    """The declared story against the eval traces on disk (demo/measure.py, words not tokens)."""
    import pyarrow.parquet as pq

    from rl_assets.demo import measure
    from rl_assets.demo.constants import eval_dataset

    truth, hub = lineage["truth"], lineage["home"] / "hub" / "datasets"
    stages = [truth["base"], *[m["repo_id"] for m in truth["members"]]]
    means = {}
    for model in stages:
        rows = [
            r
            for f in sorted((hub / eval_dataset(model, truth["benchmark"]) / "data").glob("*.parquet"))
            for r in pq.read_table(f).to_pylist()
        ]
        means[model] = measure.feature_means([r["conversations"] for r in rows])
        assert means[model] == truth["measured"]["feature_means"][model]
    for feature in truth["unchanged_features"]:
        assert len({means[m][feature] for m in stages}) == 1, feature
    for feature in truth["planted_features"]:
        values = [means[m][feature] for m in stages]
        assert values == sorted(values, reverse=True) and len(set(values)) == len(values), feature


def test_members_in_step_order_from_rl_config(lineage):
    got, truth = lineage["json"], lineage["truth"]
    assert [m["repo_id"] for m in got["members"]] == [m["repo_id"] for m in truth["members"]]
    assert [m["step"] for m in got["members"]] == [5, 10, 20] and got["excluded"] == []
    assert truth["members_by_name"] != [m["repo_id"] for m in got["members"]]  # by name, step 5 would come last
    assert {m["step_source"] for m in got["members"]} == {"rl_config export_path global_step_<N>"}
    assert got["pinned"]["benchmark"] == truth["benchmark"] and got["pinned"]["base_model"] == truth["base"]


def test_planted_feature_changes_recovered_and_nothing_else(lineage):
    got, truth = lineage["json"], lineage["truth"]
    by_feature = {f["feature"]: f for f in got["features"]}
    for feature, want in truth["planted_features"].items():
        f = by_feature[feature]
        assert (f["first_significant"], f["direction"], f["persists"], f["moved"]["shape"]) == (
            want["first_significant"],
            want["direction"],
            want["persists"],
            want["shape"],
        ), f
        deltas = [c["delta"] for c in f["cells"]]
        assert deltas[0] > deltas[1] > deltas[2]  # falls checkpoint by checkpoint, not at once
    for feature in truth["unchanged_features"]:
        f = by_feature[feature]
        assert f["first_significant"] is None and not any(c["significant"] for c in f["cells"]), f
    assert all(
        not c["significant"]
        for s in got["steps"]
        for name, c in s["features"].items()
        if name in truth["unchanged_features"]
    )


def test_family_labels_per_checkpoint_and_their_emergence(lineage):
    got, truth = lineage["json"], lineage["truth"]
    families = {f["family"]: f for f in got["families"]}
    assert set(families) == set(truth["families"])
    for family, labels in truth["planted_labels"].items():
        assert [c["label"] for c in families[family]["cells"]] == labels, family
        first = truth["change_labels_first_seen"][family]
        path = families[family]["label_path"]
        assert (path["label"], path["at"]) == ((first["label"], first["at"]) if first else (None, None)), family
        assert path["persists"] is (True if first else None)
    assert not any(c["significant"] for c in families["leg_counting"]["cells"])  # the control never moves
    gamed = families["letter_counting"]["cells"][1]["imitation"]
    assert gamed["constant_answer"] == "1" and gamed["imitation"] == 1.0


def test_checkpoints_sit_on_the_training_curves_and_rollouts_show_the_window(lineage):
    got, truth = lineage["json"], lineage["truth"]
    assert got["curves"]["source"] == truth["members"][-1]["repo_id"]
    logs = truth["training_logs"]
    at = {a["step"]: a for a in got["curves"]["at_checkpoints"]}
    assert at[20]["reward"] == pytest.approx(logs["final"]["reward/avg_raw_reward"])
    assert at[5]["reward"] < at[10]["reward"] < at[20]["reward"] and at[5]["entropy"] > at[20]["entropy"]
    ro = got["rollouts"]
    assert ro["applicable"] and ro["placed_on_steps"] == ro["rollouts"] == truth["rl_rollouts"]["rows"]
    series = {s["series"]: s for s in ro["series"]}
    assert set(series) == set(truth["rl_rollouts"]["trends"])  # every feature, and the gamed family's imitation
    for name, trend in truth["rl_rollouts"]["trends"].items():
        s = series[name]
        if trend == "unchanged":
            assert not s["moved"], s
        else:
            assert s["moved"] and s["direction"] == trend and 1 <= s["window"][0] <= s["window"][1] <= 20, s
    gamed_at = truth["rl_rollouts"]["gamed_from_step"]
    assert 5 < gamed_at < 10 and series["imitation:letter_counting"]["window"][0] <= gamed_at
    assert gamed_at <= series["imitation:letter_counting"]["window"][1] and ro["imitation_not_available"] == {}


def test_report_plots_metadata_and_checks_show_in_the_ui(lineage):
    result, folder = lineage["result"], lineage["folder"]
    assert {p.name for p in folder.iterdir()} >= {
        "lineage.md",
        "lineage.json",
        "features.png",
        "labels.png",
        "curves.png",
    }
    md = (folder / "lineage.md").read_text()
    assert (
        "![features × checkpoints](features.png)" in md and "| letter_counting | no real gain | gamed | gamed |" in md
    )
    meta = result.asset_materializations_for_node("run_lineage")[0].metadata
    assert meta["lineage"].value.count("data:image/png;base64,") == 3
    assert meta["members"].data == [m["repo_id"] for m in lineage["truth"]["members"]]
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks == {"enough_checkpoints": True, "all_checkpoints_comparable": True, "training_curves_found": True}


def test_index_of_each_member_links_to_the_lineage(lineage):
    from rl_assets.definitions import analysis_index

    instance, truth = lineage["instance"], lineage["truth"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLDELTA_HOME", str(lineage["home"]))
        model = truth["members"][1]["repo_id"]
        assert dg.materialize([analysis_index], instance=instance, partition_key=model).success
        text = (lineage["home"] / "reports" / model.replace("/", "--") / "INDEX.md").read_text()
    assert f"Run lineage: [{truth['job']}](../runs/{truth['job']}/lineage.md) — checkpoint 2 of 3" in text


def test_refuses_to_mix_benchmarks_and_lists_why(lineage):
    instance, truth = lineage["instance"], lineage["truth"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLDELTA_HOME", str(lineage["home"]))
        result = dg.materialize(
            [run_lineage],
            instance=instance,
            partition_key=truth["job"],
            resources=_resources(),
            run_config={"ops": {"run_lineage": {"config": {"benchmark": "terminal-bench-mini"}}}},
        )
        got = json.loads((lineage["folder"] / "lineage.json").read_text())
    assert got["members"] == [] and len(got["excluded"]) == 3
    assert all(
        "evaluated on 'rg-tool-use'; this lineage is pinned to 'terminal-bench-mini'" in e["reason"]
        for e in got["excluded"]
    )
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks["enough_checkpoints"] is False and checks["all_checkpoints_comparable"] is False


def test_the_demo_check_finds_the_story_and_names_what_a_wrong_lineage_gets_wrong(lineage):
    import copy

    from rl_assets.demo.lineage_check import mismatches

    got, truth = lineage["json"], lineage["truth"]
    assert mismatches(got, truth) == []  # what `rldelta demo --run` prints as recovered
    wrong = copy.deepcopy(got)
    think = next(f for f in wrong["features"] if f["feature"] == "think_tokens")
    think["cells"][1]["significant"] = True
    tool = next(f for f in wrong["features"] if f["feature"] == "tool_errors")
    tool["first_significant"] = truth["members"][1]["repo_id"]
    letters = next(f for f in wrong["families"] if f["family"] == "letter_counting")
    letters["cells"][1]["label"] = "no real gain"
    legs = next(f for f in wrong["families"] if f["family"] == "leg_counting")
    legs["reward"].update(first_significant=truth["members"][2]["repo_id"], first_step=20)
    wrong["members"] = wrong["members"][::-1]
    found = "\n".join(mismatches(wrong, truth))
    for expected in (
        "unplanted think_tokens flagged significant at [10]",
        "planted tool_errors:",
        "letter_counting: labels",
        "leg_counting: no change planted",
        "members [",
    ):
        assert expected in found, (expected, found)


def test_a_single_checkpoint_job_passes_enough_checkpoints_as_not_applicable_with_the_reason(lineage):
    """A job that published one checkpoint has no lineage to draw by design: the check passes, saying why
    (it showed a red "Failed" with no description)."""
    from rl_assets.partitions import rl_jobs_partitions

    truth = lineage["truth"]
    only = truth["members"][0]["repo_id"]
    instance = partition_instance(only)  # an instance that knows one checkpoint of the job
    instance.add_dynamic_partitions(rl_jobs_partitions.name, [truth["job"]])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLDELTA_HOME", str(lineage["home"]))
        result = dg.materialize([run_lineage], instance=instance, partition_key=truth["job"], resources=_resources())
    (check,) = [c for c in result.get_asset_check_evaluations() if c.check_name == "enough_checkpoints"]
    assert check.passed and check.description.startswith("not applicable: ")
    assert "1 checkpoint" in check.description and check.metadata["applicable"].value is False
