"""analysis_index reads a real Dagster instance: materialized / failed / not applicable / never run."""

import json

import dagster as dg
import pytest

from resources.io_manager import RlDeltaIOManager
from rl_assets.analysis.render.index_md import COMPLETION_NOTE, judge_findings, q1_findings
from rl_assets.assets.report_index import analysis_steps
from rl_assets.definitions import ANALYSIS, analysis_index
from rl_assets.partitions import models_partitions

MODEL = "org/rl-model-8B"
ANALYSIS_ASSETS = analysis_steps(ANALYSIS)  # what INDEX.md reports on


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path))
    return tmp_path / "reports" / "org--rl-model-8B"


def stubs(folder):
    """Stand-ins with the real asset keys: one writes a report, one is not applicable, one fails."""

    @dg.asset(name="behavioral_delta", partitions_def=models_partitions, group_name="q1")
    def behavioral_delta():
        out = folder / "Q1_behavioral_delta" / "report.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        result = {
            "features": [
                {"feature": "think_tokens", "significant": True, "before": 80.0, "after": 38.0},
                {"feature": "code_fence_blocks", "significant": False},
            ],
            "paired": {"passed": {"before": 0.3, "after": 0.5}},
            "task_flips": {"newly_passing": 6, "newly_failing": 1, "mcnemar_p": 0.125},
        }
        out.write_text(json.dumps({}))  # the report file is an output only: the findings come from the value
        return dg.Output(
            result, data_version=dg.DataVersion("q1-v1"), metadata={"report": dg.MetadataValue.path(str(out))}
        )

    @dg.asset(name="rl_traces", partitions_def=models_partitions, group_name="q2")
    def rl_traces():
        reason = "not applicable: no RL rollout dataset for org/rl-model-8B"
        return dg.Output({"applicable": False, "reason": reason}, metadata={"applicable": False, "reason": reason})

    @dg.asset(name="trace_pairs", partitions_def=models_partitions, group_name="q3")
    def trace_pairs():
        raise dg.Failure(description="pairs exploded on purpose")

    return [behavioral_delta, rl_traces, trace_pairs]


def test_index_reports_each_status_from_the_event_log(home, partition_instance):
    instance = partition_instance(MODEL)
    first = dg.materialize(
        stubs(home),
        instance=instance,
        partition_key=MODEL,
        raise_on_error=False,
        resources={"io_manager": RlDeltaIOManager()},
    )
    assert not first.success
    result = dg.materialize([analysis_index], instance=instance, partition_key=MODEL)
    assert result.success
    statuses = result.output_for_node("analysis_index")["statuses"]
    assert statuses["behavioral_delta"] == "materialized"
    assert statuses["rl_traces"] == "not applicable"
    assert statuses["trace_pairs"] == "failed"
    assert statuses["learning_audit"] == "never materialized"

    text = (home / "INDEX.md").read_text()
    assert COMPLETION_NOTE in text
    row = next(line for line in text.splitlines() if line.startswith("| **trace_pairs**"))
    assert "pairs exploded on purpose" in row and f"`{first.run_id}`" in row  # whole: a prefix finds no run
    row = next(line for line in text.splitlines() if line.startswith("| **behavioral_delta**"))
    assert "`q1-v1`" in row and "[Q1_behavioral_delta/report.json](Q1_behavioral_delta/report.json)" in row
    assert "no RL rollout dataset for org/rl-model-8B" in text
    assert "think_tokens 80 → 38" in text and "LLM judge: not produced" in text and "audit: not produced" in text


def test_run_ids_link_to_the_ui_and_input_versions_are_the_upstreams_own(home, monkeypatch, partition_instance):
    monkeypatch.setenv("RLDELTA_UI_URL", "http://127.0.0.1:3999/")
    instance = partition_instance(MODEL)
    version = {"v": "tables-1"}

    @dg.asset(name="baseline_traces", partitions_def=models_partitions, group_name="preflight")
    def baseline_traces():
        return dg.Output(1, data_version=dg.DataVersion(version["v"]))

    @dg.asset(
        name="behavioral_delta",
        partitions_def=models_partitions,
        group_name="q1",
        ins={"baseline_traces": dg.AssetIn()},
    )
    def behavioral_delta(baseline_traces):
        return 2

    dg.materialize([baseline_traces, behavioral_delta], instance=instance, partition_key=MODEL)
    version["v"] = "tables-2"  # a new upload: the input moved on, behavioral_delta was not re-run
    later = dg.materialize(
        [baseline_traces, behavioral_delta], instance=instance, partition_key=MODEL, selection=["baseline_traces"]
    )
    dg.materialize([analysis_index], instance=instance, partition_key=MODEL)
    text = (home / "INDEX.md").read_text()
    base = next(line for line in text.splitlines() if line.startswith("| **baseline_traces**"))
    assert f"[`{later.run_id}`](http://127.0.0.1:3999/runs/{later.run_id})" in base and "`tables-2`" in base
    delta = next(line for line in text.splitlines() if line.startswith("| **behavioral_delta**"))
    assert "baseline_traces: `tables-1` (now `tables-2`: stale)" in delta
    upstream_in_ui = (
        instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("baseline_traces"), asset_partitions=[MODEL]), limit=1
        )
        .records[0]
        .asset_materialization.tags["dagster/data_version"]
    )
    assert upstream_in_ui == "tables-2"


def test_a_later_success_replaces_the_failure(home, partition_instance):
    instance = partition_instance(MODEL)
    dg.materialize(stubs(home), instance=instance, partition_key=MODEL, raise_on_error=False)

    @dg.asset(name="trace_pairs", partitions_def=models_partitions, group_name="q3")
    def fixed():
        return 1

    dg.materialize([fixed], instance=instance, partition_key=MODEL)
    result = dg.materialize([analysis_index], instance=instance, partition_key=MODEL)
    assert result.output_for_node("analysis_index")["statuses"]["trace_pairs"] == "materialized"


def test_index_is_the_analysis_runs_last_step_and_its_own_run_after_other_runs(partition_instance):
    # analyze_model writes INDEX.md last; a run that did not (a failure, a few assets) gets a write_index run.
    from rl_assets.definitions import defs
    from sensors.index_sensor import index_after_failure, index_after_success

    analyze = defs.resolve_job_def("analyze_model")
    in_analyze = {k.to_user_string() for k in analyze.asset_layer.executable_asset_keys}
    index_job = {k.to_user_string() for k in defs.resolve_job_def("write_index").asset_layer.executable_asset_keys}
    assert "analysis_index" in in_analyze and index_job == {"analysis_index"}
    assert {k.to_user_string() for k in ANALYSIS_ASSETS} | {"analysis_index"} == in_analyze
    assert set(defs.resolve_asset_graph().get(dg.AssetKey("analysis_index")).parent_keys) == set(ANALYSIS_ASSETS)
    instance = partition_instance("org/m-8B")

    def after(run, status):
        return (index_after_success if status == "PIPELINE_SUCCESS" else index_after_failure)(
            dg.build_run_status_sensor_context(
                sensor_name=f"index_after_{status}",
                dagster_instance=instance,
                dagster_run=run,
                dagster_event=dg.DagsterEvent(event_type_value=status, job_name=run.job_name),
            )
        )

    run = instance.create_run_for_job(analyze, tags={"dagster/partition": "org/m-8B"})
    request = after(run, "PIPELINE_FAILURE")
    assert request.partition_key == "org/m-8B" and request.run_key == f"index-after-{run.run_id}"

    @dg.asset(name="analysis_index", partitions_def=models_partitions, group_name="report")
    def wrote_it():
        return 1

    wrote = dg.materialize([wrote_it], instance=instance, partition_key="org/m-8B")
    assert isinstance(after(instance.get_run_by_id(wrote.run_id), "PIPELINE_SUCCESS"), dg.SkipReason)
    assert after(run, "PIPELINE_FAILURE").run_key == f"index-after-{run.run_id}"  # another run wrote it: still due


def test_findings_tolerate_missing_and_partial_reports():
    assert q1_findings(None) == ["Q1 behavioural delta: not produced"]
    assert q1_findings({"features": []})[0].startswith("Q1: no behavioural feature changed")
    judge = {
        "judge": "heuristic",
        "probes": {
            "random": {"post_rl_win_rate_decisive": {"count": 7, "share": 0.7, "wilson95": [0.4, 0.89]}},
            "most_changed": {"post_rl_win_rate_decisive": {"count": 0, "share": None}},
        },
    }
    lines = judge_findings(judge)
    assert "post-RL wins 0.70 [0.40, 0.89]" in lines[0] and lines[1] == "judge probe most_changed: no decisive pairs"


def test_findings_say_not_comparable_or_not_enough_data_instead_of_no_change():
    assert q1_findings({"invalid_for_comparison": "the two sides share no tasks", "features": []}) == [
        "Q1: not comparable — the two sides share no tasks"
    ]
    lines = q1_findings({"features": [{"feature": "tool_errors", "not_enough_data": "2 common tasks"}]})
    assert lines[0] == "Q1: not enough data to test behavioural features"


def test_findings_are_called_stale_only_when_a_newer_run_did_not_replace_them():
    """ "(stale: X is never materialized)" called a finding that never existed stale: an asset with no
    materialization has nothing to be stale, and its lines say it has not been computed."""
    from rl_assets.analysis.render.index_md import mark_stale

    line = ["Q1 behavioural delta: not produced"]
    assert mark_stale(line, "behavioral_delta", "materialized") == line
    assert mark_stale(line, "behavioral_delta", "not applicable") == line
    (never,) = mark_stale(line, "behavioral_delta", "never materialized")
    assert "stale" not in never and never.startswith("(not computed yet: behavioral_delta was never materialized)")
    failed, running, interrupted = (
        mark_stale(["Q1: x"], "behavioral_delta", s)[0] for s in ("failed", "running", "interrupted")
    )
    assert failed.startswith("(stale: the latest run of behavioral_delta failed; this is from its last success)")
    assert running.startswith("(stale: behavioral_delta is being recomputed)")
    assert interrupted.startswith("(stale: the latest run of behavioral_delta was interrupted")


def test_each_result_type_belongs_to_an_analysis_step_and_reads_back_its_stored_value():
    """INDEX.md shows the findings of the steps it iterates (ANALYSES): a result type registered for an asset
    outside them would never be shown. A stored value reads back as its type; no value gives its type's
    "not produced" lines, an asset without a type none."""
    from rl_assets.values.results import _RESULT_TYPES, index_text, result_type

    steps = {key.to_user_string() for key in ANALYSIS_ASSETS}
    per_model = {asset for asset, kind in _RESULT_TYPES.items() if kind.per_model}
    assert per_model <= steps, sorted(per_model - steps)
    assert {"model_comparison", "run_lineage"} == set(_RESULT_TYPES) - per_model
    for asset in ("behavioral_delta", "judge_verdicts", "eval_temporal_overlay", "learning_audit", "reward_integrity"):
        assert result_type(asset) is not None, f"{asset}: INDEX.md would lose its findings"
    assert index_text("behavioral_delta", None) == ([], ["Q1 behavioural delta: not produced"])
    assert index_text("reward_integrity", None) == (["Reward integrity: not produced"], [])
    stored = {"rl_applicable": False, "rl_reason": "no RL rollouts", "notes": ["no RL rollouts: markers only"]}
    assert index_text("eval_temporal_overlay", stored) == ([], ["Q3 overlay: no RL rollouts: markers only"])
    assert index_text("baseline_traces", {"path": "x"}) == ([], [])
