"""The demo's verl and TRL runs: planted verdicts and onsets, written where the readers look, and
recovered by the integrity analysis from the per-step tables those runs give (issue 22 contract)."""

import json

from rl_assets.analysis.integrity import onsets, reward_integrity
from rl_assets.demo import integrity_runs, trl_run, verl_run
from rl_assets.demo.integrity_runs import mismatches

SEED = 7


def _value(frame, generations=None) -> dict:
    """What the reward_integrity asset stores for a run (rl_assets/assets/reward_integrity.py)."""
    result = reward_integrity(frame, generations)
    return {
        "applicable": True,
        "verdict": result["verdict"],
        "verdict_reason": result["verdict_reason"],
        "onsets": onsets(result),
    }


def test_the_analysis_recovers_the_planted_truth_from_the_generated_tables():
    truth = integrity_runs.truth()
    values = {
        integrity_runs.VERL_MODEL: _value(verl_run.canonical(verl_run.metrics(SEED)), verl_run.generations(SEED)),
        integrity_runs.TRL_MODEL: _value(trl_run.canonical(trl_run.log_history(SEED))),
    }
    assert mismatches(values, truth) == []
    assert truth[integrity_runs.VERL_MODEL]["onsets"]["reward_task_divergence"] == verl_run.HACK_FROM == 30
    assert truth[integrity_runs.TRL_MODEL]["verdict"] == "healthy"


def test_the_check_reports_every_kind_of_miss():
    truth = integrity_runs.truth()
    good = {"applicable": True, "verdict": verl_run.VERDICT, "onsets": dict(verl_run.ONSETS)}
    late = {**good, "onsets": {**good["onsets"], "length_collapse": 41}}
    extra = {"applicable": True, "verdict": "healthy", "onsets": {"entropy_collapse": 12}}
    wrong = mismatches({integrity_runs.VERL_MODEL: late, integrity_runs.TRL_MODEL: extra}, truth)
    assert wrong == [
        f"{integrity_runs.VERL_MODEL}: length_collapse onset at step 41, planted at step 40",
        f"{integrity_runs.TRL_MODEL}: entropy_collapse holds from step 12, but nothing was planted there",
    ]
    missing = mismatches({integrity_runs.VERL_MODEL: {"applicable": False, "reason": "no steps"}}, truth)
    assert missing[0].endswith("no reward_integrity verdict (no steps)") and "not materialized" in missing[1]
    flipped = mismatches({integrity_runs.VERL_MODEL: good, integrity_runs.TRL_MODEL: {**good, "onsets": {}}}, truth)
    assert flipped == [
        f"{integrity_runs.TRL_MODEL}: verdict 'reward earned outside the task', planted 'healthy' (None)"
    ]


def test_the_world_writes_both_runs_where_the_readers_look(demo_world_seed7):
    world, truth, home = demo_world_seed7
    assert truth["reward_integrity"] == integrity_runs.truth()
    verl = world.hub_dir / "models" / integrity_runs.VERL_MODEL / "training_logs" / integrity_runs.VERL_LOG
    lines = verl.read_text().splitlines()
    assert len(lines) == verl_run.STEPS and lines[0].startswith(f"(TaskRunner pid={verl_run.PID}) step:1 - ")
    assert sum(verl_run.VAL_KEY in ln for ln in lines) == verl_run.STEPS // verl_run.VAL_EVERY
    state = json.loads(
        (
            world.hub_dir
            / "models"
            / integrity_runs.TRL_MODEL
            / "training_logs"
            / "checkpoint-300"
            / "trainer_state.json"
        ).read_text()
    )
    assert state["global_step"] == 300 and state["best_model_checkpoint"].endswith("checkpoint-300")
    train = [e for e in state["log_history"] if "reward" in e]
    assert len(train) == truth["reward_integrity"][integrity_runs.TRL_MODEL]["steps"] == 60
    assert {
        "rewards/accuracy_reward/mean",
        "rewards/format_reward/mean",
        "completions/mean_length",
        "kl",
        "entropy",
        "grad_norm",
        "loss",
    } <= set(train[0])
    assert sum("eval_reward" in e for e in state["log_history"]) == 6


def test_make_demo_recovers_the_planted_truth_through_the_readers_and_assets(demo_world_seed7, monkeypatch):
    """The demo's verl console log and TRL trainer_state.json, read by the trainers' readers
    (training_metrics) and judged by reward_integrity, give the planted verdicts and onsets."""
    from resources.hub import HubResource
    from resources.io_manager import RlDeltaIOManager
    from resources.settings_resource import AnalysisSettings
    from rl_assets.assets.checkpoint import checkpoint
    from rl_assets.assets.q2_training import training_logs, training_metrics
    from rl_assets.assets.reward_integrity import reward_integrity as asset
    from support.dagster_run import materialize_partition

    _, truth, home = demo_world_seed7
    monkeypatch.setenv("RLDELTA_HOME", str(home))
    values, trainers = {}, {}
    for model in integrity_runs.MODELS:
        result = materialize_partition(
            [checkpoint, training_logs, training_metrics, asset],
            model,
            resources={"hub": HubResource(), "settings": AnalysisSettings(), "io_manager": RlDeltaIOManager()},
        )
        values[model] = result.output_for_node("reward_integrity")
        metrics = result.output_for_node("training_metrics")
        trainers[model] = metrics.trainer
        # the verl run's W&B validation tables are stored for reward_integrity; the TRL run has none
        assert bool(metrics.validation_generations) == (model == integrity_runs.VERL_MODEL)
    assert mismatches(values, truth["reward_integrity"]) == []
    assert trainers == {m: truth["reward_integrity"][m]["trainer"] for m in integrity_runs.MODELS}
