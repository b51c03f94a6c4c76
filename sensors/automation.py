"""Declarative automation: downstream assets refresh when their inputs change.

Sensors materialize the roots (checkpoint, eval_pair, training_logs) and INDEX.md
(`analysis_index`, after each run ends); every other per-model asset is `eager`, so an upload
recomputes exactly what depends on it. A run that materializes a root together with everything
below it (the checkpoint and training-logs sensors' runs) carries COVERS_DOWNSTREAM, and its updates
trigger nothing: the run does that work itself.

Dagster's own eager rule for this (`executed_with_root_target`: ignore a parent update whose run also
planned the child) never matched those runs: a sensor run of a job carries no asset selection, and
the rule reads only the asset's latest materialization of any partition. So a tick that fell inside
the logs run saw `training_metrics` updated and asked for `rl_temporal` again - a run with unchanged
inputs, then its lineage refresh and INDEX.md rewrites (7 runs, 4 rewrites for one logs upload).
"""

import dagster as dg

SENSOR_ROOTS = frozenset({"checkpoint", "eval_pair", "training_logs"})
# INDEX.md is rewritten after every run ends (sensors/index_sensor.py), not whenever a parent changes.
SENSOR_DRIVEN = SENSOR_ROOTS | {"analysis_index"}
# The tag of a run that materializes a root and every per-model asset below it (value "true").
COVERS_DOWNSTREAM = "rldelta/covers_downstream"

rldelta_automation = dg.AutomationConditionSensorDefinition(
    "rldelta_automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    description="Evaluates the eager automation conditions of every analysis asset.",
)


def eager() -> dg.AutomationCondition:
    """Dagster's eager, except that updates made only by COVERS_DOWNSTREAM runs are no trigger
    (`all_new_updates_have_run_tags` looks at this partition's new materializations themselves)."""
    updated_elsewhere = (
        dg.AutomationCondition.newly_updated()
        & ~dg.AutomationCondition.all_new_updates_have_run_tags(tag_keys={COVERS_DOWNSTREAM})
        & ~dg.AutomationCondition.executed_with_root_target()
    ).with_label("newly_updated_outside_a_run_that_covers_it")
    return dg.AutomationCondition.eager().replace("newly_updated_without_root", updated_elsewhere)


def with_automation(spec: dg.AssetSpec) -> dg.AssetSpec:
    """Eager for every asset with parents, except the ones that sensors decide on."""
    if spec.key.to_user_string() in SENSOR_DRIVEN or not spec.deps or spec.automation_condition is not None:
        return spec
    return spec.replace_attributes(automation_condition=eager())
