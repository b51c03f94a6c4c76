"""`reward_integrity` (Q2): is the reward being earned outside the task, or has the policy collapsed?

Thin wrapper: reads the per-step table `training_metrics` stored, runs rl_assets.analysis.integrity,
writes `<reports>/<slug>/Q2_reward_integrity/` (reward_integrity.{md,json}, curves.png). Rules: docs/integrity.md.
The check of the same name is red (ERROR) for "reward earned outside the task" and "collapsed";
"not enough data" passes and says so, because a run that cannot be judged has not failed.
"""

import dagster as dg

from rl_assets import store
from rl_assets.analysis.integrity import onsets, rules
from rl_assets.analysis.integrity import reward_integrity as analyse
from rl_assets.analysis.integrity.report import PLOT, integrity_report, not_applicable_files
from rl_assets.analysis.render.figures import markdown_image
from rl_assets.partitions import models_partitions
from rl_assets.support.handover_types import TRAINING_METRICS
from rl_assets.support.not_applicable import not_applicable_metadata
from rl_assets.support.report_files import Q2_REWARD_INTEGRITY, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import NotApplicable, StepTableRef

CHECK = "reward_integrity"
CHECK_SPEC = dg.AssetCheckSpec(
    CHECK,
    asset="reward_integrity",
    partitions_def=models_partitions,
    description=(
        "ERROR when the run's verdict is 'reward earned outside the task' or 'collapsed'; passes for 'healthy', and "
        "for 'not enough data' or no training logs with the reason in its description (docs/integrity.md)."
    ),
)


def integrity_check(verdict: str | None, reason: str) -> dg.AssetCheckResult:
    """Red only for a verdict that says something is wrong; every pass names what it rests on."""
    bad = verdict in (rules.OUTSIDE, rules.COLLAPSED)
    words = {
        None: "passed: not applicable",
        rules.NOT_ENOUGH: "passed with reason: not enough data",
        rules.HEALTHY: "healthy",
    }
    return dg.AssetCheckResult(
        check_name=CHECK,
        passed=not bad,
        severity=dg.AssetCheckSeverity.ERROR,
        description=f"{verdict if bad else words[verdict]} — {reason}",
        metadata={"verdict": verdict or "not applicable"},
    )


@dg.asset(
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
    if not training_metrics.applicable:
        reason = f"no training steps ({training_metrics.reason})"
        written = write_report(model, Q2_REWARD_INTEGRITY, not_applicable_files(reason, model))
        yield dg.Output(
            {"applicable": False, "reason": reason},
            metadata={
                **not_applicable_metadata(reason),
                **file_metadata("report", written["reward_integrity.md"]),
            },
        )
        yield integrity_check(None, reason)
        return
    steps = store.read_table(training_metrics.steps_table).to_pandas()
    # Validation generations: a store table with step, sample, input, output, score (None when the
    # logs hold none).
    gen_path = training_metrics.validation_generations
    generations = store.read_table(gen_path).to_pandas() if gen_path else None
    result = analyse(steps, generations, "not read: training_metrics stored no validation-generation table")
    report = integrity_report(result, steps, model)
    written = write_report(model, Q2_REWARD_INTEGRITY, report.files)
    yield dg.Output(
        # verdict and onsets: what INDEX.md and the run lineage read (never the report files)
        {
            "applicable": True,
            "trainer": training_metrics.trainer,
            "verdict": result["verdict"],
            "verdict_reason": result["verdict_reason"],
            "onsets": onsets(result),
            "statuses": {n: s["status"] for n, s in result["signals"].items()},
        },
        metadata={
            "verdict": result["verdict"],
            "trainer": str(training_metrics.trainer or "unknown"),
            "signals": dg.MetadataValue.md(report.summary),
            "onsets": dg.MetadataValue.json(onsets(result)),
            # {metric: {kind: count}} of ±inf / NaN strings / non-numbers, dropped as not logged
            "non_finite": dg.MetadataValue.json(result["non_finite"]),
            **file_metadata("report", written["reward_integrity.md"]),
            "curves": dg.MetadataValue.md(markdown_image("curves", report.plots[PLOT]))
            if PLOT in report.plots
            else "no curves logged",
        },
    )
    yield integrity_check(result["verdict"], result["verdict_reason"])
