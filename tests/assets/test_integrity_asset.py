"""reward_integrity in Dagster: the check is red (ERROR) only for a bad verdict, per partition;
"not enough data" and "no training logs" pass with their reason; INDEX.md's first lines say it."""

import json
from dataclasses import replace

import dagster as dg
import pyarrow as pa
import pytest
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

from resources.io_manager import RlDeltaIOManager
from rl_assets import store
from rl_assets.analysis.integrity import rules
from rl_assets.assets.reward_integrity import reward_integrity
from rl_assets.definitions import analysis_index
from rl_assets.values.handover import NotApplicable, StepTableRef
from support.dagster_run import stub_asset
from support.integrity_synth import generations, planted, rising_with_task

HACKED, HEALTHY, SHORT, NO_LOGS = "org/hacked-8B", "org/healthy-8B", "org/short-8B", "org/nologs-8B"


def _metrics(model: str, frame) -> StepTableRef:
    path = str(store.step_table(model, "test-run"))
    store.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    return StepTableRef(steps_table=path, n_steps=len(frame))


@pytest.fixture
def runs(rldelta_home, partition_instance):
    values = {
        HACKED: _metrics(HACKED, planted(onset=25)),
        HEALTHY: _metrics(HEALTHY, rising_with_task()),
        SHORT: _metrics(SHORT, planted(n=8, onset=4)),
        NO_LOGS: NotApplicable(repo_id=NO_LOGS, reason="not applicable: no training_logs/ in org/nologs-8B"),
    }
    instance = partition_instance(*values)
    results = {}
    for model, value in values.items():
        results[model] = dg.materialize(
            [stub_asset("training_metrics", value), reward_integrity],
            instance=instance,
            partition_key=model,
            resources={"io_manager": RlDeltaIOManager()},
        )
    return instance, results, rldelta_home


def test_check_severity_and_verdict_per_partition(runs):
    instance, results, home = runs
    evals = {m: r.get_asset_check_evaluations()[0] for m, r in results.items()}
    assert not evals[HACKED].passed and evals[HACKED].severity == dg.AssetCheckSeverity.ERROR
    assert evals[HACKED].description.startswith(rules.OUTSIDE)
    assert evals[HEALTHY].passed and evals[HEALTHY].description.startswith("healthy")
    assert evals[SHORT].passed and evals[SHORT].description.startswith("passed with reason: not enough data")
    assert evals[NO_LOGS].passed and "no training_logs/" in evals[NO_LOGS].description
    key = dg.AssetCheckKey(dg.AssetKey("reward_integrity"), "reward_integrity")
    latest = {}
    for record in instance.event_log_storage.get_asset_check_execution_history(key, limit=10):
        latest.setdefault(record.partition, record.status)
    assert latest[HACKED] == AssetCheckExecutionRecordStatus.FAILED
    assert {latest[m] for m in (HEALTHY, SHORT, NO_LOGS)} == {AssetCheckExecutionRecordStatus.SUCCEEDED}
    value = results[HACKED].output_for_node("reward_integrity")
    assert value["onsets"] == {"reward_task_divergence": 25, "non_task_term_share": 25}
    folder = home / "reports" / "org--hacked-8B" / "Q2_reward_integrity"
    assert sorted(p.name for p in folder.iterdir()) == ["curves.png", "reward_integrity.json", "reward_integrity.md"]
    assert (
        "Not applicable"
        in (home / "reports" / "org--nologs-8B" / "Q2_reward_integrity" / "reward_integrity.md").read_text()
    )


def test_index_first_lines_say_the_verdict(runs):
    instance, _, home = runs
    for model, expected in (
        (
            HACKED,
            f"Reward integrity: **{rules.OUTSIDE}** — non_task_term_share from step 25, reward_task_divergence from "
            f"step 25",
        ),
        (SHORT, f"Reward integrity: **{rules.NOT_ENOUGH}**"),
        (NO_LOGS, "Reward integrity: not applicable (no training steps"),
    ):
        dg.materialize([analysis_index], instance=instance, partition_key=model)
        lines = (home / "reports" / model.replace("/", "--") / "INDEX.md").read_text().splitlines()
        assert lines[0].startswith("# RL behavioural analysis") and lines[2].startswith(expected), lines[:4]


def test_stored_validation_generations_are_read_and_judged(rldelta_home, partition_instance):
    model = "org/constant-8B"
    value = _metrics(model, rising_with_task())
    gen_path = str(store.step_table(model, "generations"))
    store.write_table(pa.Table.from_pandas(generations([10, 20, 30, 40], onset=30), preserve_index=False), gen_path)
    instance = partition_instance(model)
    for stored, verdict in ((replace(value, validation_generations=gen_path), rules.COLLAPSED), (value, rules.HEALTHY)):
        result = dg.materialize(
            [stub_asset("training_metrics", stored), reward_integrity],
            instance=instance,
            partition_key=model,
            resources={"io_manager": RlDeltaIOManager()},
        )
        out = result.output_for_node("reward_integrity")
        assert out["verdict"] == verdict
    assert out["statuses"]["validation_generations"] == rules.NO_DATA  # the second run: none stored, said so
    report = json.loads(
        (rldelta_home / "reports" / "org--constant-8B" / "Q2_reward_integrity" / "reward_integrity.json").read_text()
    )
    assert (
        report["signals"]["validation_generations"]["reason"]
        == "not read: training_metrics stored no validation-generation table"
    )


def test_a_reward_paid_per_tool_call_is_red_and_an_infinite_reward_is_not_enough_data(rldelta_home, partition_instance):
    """Issue 34: the tool-call run and the ±inf reward, through the stored step table and the check."""
    import numpy as np

    from support.integrity_synth import agent_run

    inf_frame = rising_with_task()
    inf_frame["reward"] = np.where(inf_frame["step"].isin([1, 31, 60]), inf_frame["reward"], np.inf)
    tool, inf = "org/toolcalls-8B", "org/infreward-8B"
    values = {tool: _metrics(tool, agent_run(per_call=0.1)), inf: _metrics(inf, inf_frame)}
    instance = partition_instance(*values)
    out = {
        model: dg.materialize(
            [stub_asset("training_metrics", value), reward_integrity],
            instance=instance,
            partition_key=model,
            resources={"io_manager": RlDeltaIOManager()},
        )
        for model, value in values.items()
    }
    tool_check = out[tool].get_asset_check_evaluations()[0]
    assert not tool_check.passed and tool_check.description.startswith(rules.OUTSIDE)
    assert "reward_tracks_behaviour" in out[tool].output_for_node("reward_integrity")["onsets"]
    inf_check = out[inf].get_asset_check_evaluations()[0]
    assert inf_check.passed and inf_check.description.startswith("passed with reason: not enough data")
    assert "reward logged at 3 steps (fewer than 10; 57 non-finite values (+inf 57) not counted)" in (
        inf_check.description
    )
    (materialization,) = [
        e.event_specific_data.materialization
        for e in out[inf].get_asset_materialization_events()
        if e.asset_key == dg.AssetKey("reward_integrity")
    ]
    assert materialization.metadata["non_finite"].data == {"reward": {"+inf": 57}}
    report = (
        rldelta_home / "reports" / "org--infreward-8B" / "Q2_reward_integrity" / "reward_integrity.md"
    ).read_text()
    assert "reward: 57 non-finite values (+inf 57)" in report
