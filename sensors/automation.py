"""Declarative automation: downstream assets refresh when their inputs change.

Sensors materialize the roots (checkpoint, eval_pair, training_logs) and INDEX.md
(`analysis_index`, after each run ends); every other per-model asset is `eager`, so an upload
recomputes exactly what depends on it. Runs that already targeted an asset together with its
parents do not trigger it again.
"""

import dagster as dg

SENSOR_ROOTS = frozenset({"checkpoint", "eval_pair", "training_logs"})
# INDEX.md is rewritten after every run ends (sensors/index_sensor.py), not whenever a parent changes.
SENSOR_DRIVEN = SENSOR_ROOTS | {"analysis_index"}

rldelta_automation = dg.AutomationConditionSensorDefinition(
    "rldelta_automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    description="Evaluates the eager automation conditions of every analysis asset.",
)


def with_automation(spec: dg.AssetSpec) -> dg.AssetSpec:
    """Eager for every asset with parents, except the ones that sensors decide on."""
    if spec.key.to_user_string() in SENSOR_DRIVEN or not spec.deps or spec.automation_condition is not None:
        return spec
    return spec.replace_attributes(automation_condition=dg.AutomationCondition.eager())
