"""`reward_integrity` (Q2): is the reward being earned outside the task, or has the policy collapsed?

Thin wrapper: reads the per-step table `training_metrics` stored, runs rl_assets.analysis.integrity (its
result: analysis/integrity/result.py) and emits it: the stored verdict, `<reports>/<slug>/Q2_reward_integrity/`
(reward_integrity.{md,json}, curves.png), metadata and the check. Rules: docs/integrity.md.
"""

import dagster as dg

from rl_assets import store
from rl_assets.analysis.integrity.result import CHECK, RewardIntegrity, analyse_integrity, integrity_not_applicable
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import emit
from rl_assets.support.handover_types import TRAINING_METRICS
from rl_assets.values.handover import NotApplicable, StepTableRef

ASSET = RewardIntegrity.asset
CHECK_SPEC = dg.AssetCheckSpec(
    CHECK,
    asset=ASSET,
    partitions_def=models_partitions,
    description=(
        "ERROR when the run's verdict is 'reward earned outside the task' or 'collapsed'; passes for 'healthy', and "
        "for 'not enough data' or no training logs with the reason in its description (docs/integrity.md)."
    ),
)


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"python", "markdown", "matplotlib"},
    ins={"training_metrics": dg.AssetIn(dagster_type=TRAINING_METRICS)},
    check_specs=[CHECK_SPEC],
)
def reward_integrity(context: dg.AssetExecutionContext, training_metrics: StepTableRef | NotApplicable):
    """Per run: reward/task divergence, non-task reward terms, train vs val, the reward tracking a
    behaviour count (tool calls, turns, length), length or entropy collapse, validation generations;
    each with its onset step, the non-finite values per metric, and a verdict."""
    model = context.partition_key
    if isinstance(training_metrics, NotApplicable):
        result = integrity_not_applicable(f"no training steps ({training_metrics.reason})", model)
    else:
        steps = store.read_table(training_metrics.steps_table).to_pandas()
        # Validation generations: a store table with step, sample, input, output, score (None when the
        # logs hold none).
        gen_path = training_metrics.validation_generations
        generations = store.read_table(gen_path).to_pandas() if gen_path else None
        result = analyse_integrity(steps, generations, training_metrics.trainer, model)
    yield from emit(model, result)
