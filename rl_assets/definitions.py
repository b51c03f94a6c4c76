"""The one Definitions object: every asset, check, job and sensor of rldelta, listed by name.

A new asset, job or sensor is added here, next to its import (a per-model analysis asset: one
line in ANALYSES, rl_assets/assets/__init__.py); tests/architecture/test_definitions_snapshot.py
then fails until tests/snapshots/definitions.json is updated (its docstring says how), so an
added or dropped definition is always a visible change. Asset checks are declared on their assets
(`check_specs`), so they come with the assets listed here.
"""

from __future__ import annotations

import dagster as dg

from resources import build_resources
from resources.io_manager import RlDeltaIOManager
from rl_assets.assets import ANALYSIS
from rl_assets.assets.model_comparison import model_comparison
from rl_assets.assets.report_index import build_analysis_index
from rl_assets.assets.run_lineage import build_run_lineage
from rl_assets.jobs.analyze import analyze_model, write_index
from rl_assets.jobs.compare import compare_models
from rl_assets.jobs.lineage import refresh_lineage
from rl_assets.jobs.write_back import write_back_failure_modes
from rl_assets.support.long_lived import freeze_long_lived
from sensors.automation import rldelta_automation, with_automation
from sensors.checkpoint_sensor import checkpoint_sensor
from sensors.comparison_sensor import comparison_after_failure, comparison_after_success
from sensors.index_sensor import index_after_failure, index_after_success
from sensors.lineage_sensor import lineage_after_failure, lineage_after_success
from sensors.registry_sensor import registry_sensor
from sensors.training_logs_sensor import training_logs_sensor

# Every per-model analysis asset comes from the one ordered list, rl_assets/assets/__init__.py
# (ANALYSES). INDEX.md (`analysis_index`) reports on, and runs after, each of them.
analysis_index = build_analysis_index(ANALYSIS)
# The run lineage reads what each member checkpoint's analysis assets stored: the same list.
run_lineage = build_run_lineage(ANALYSIS)
ASSETS = [*ANALYSIS, analysis_index, model_comparison, run_lineage]

JOBS: list[dg.JobDefinition | dg.UnresolvedAssetJobDefinition] = [
    analyze_model,
    write_index,
    compare_models,
    refresh_lineage,
    write_back_failure_modes,
]

SENSORS = [
    checkpoint_sensor,
    registry_sensor,
    training_logs_sensor,
    rldelta_automation,
    index_after_success,
    index_after_failure,
    comparison_after_success,
    comparison_after_failure,
    lineage_after_success,
    lineage_after_failure,
]


def build_definitions() -> dg.Definitions:
    return dg.Definitions(
        assets=dg.map_asset_specs(with_automation, ASSETS),
        jobs=JOBS,
        sensors=SENSORS,
        resources={"io_manager": RlDeltaIOManager(), **build_resources()},
        # Every step of a run in the run's own process: a fresh process per step re-imports Dagster
        # and the code (~3.5 s CPU, ~240 MB each), which would dominate a sensor-launched analysis.
        # Pools still cap hub/LLM steps across runs (the in-process executor claims pool slots), and
        # terminating a run ends one process, leaving no step processes behind. See docs/execution.md.
        executor=dg.in_process_executor,
    )


defs = build_definitions()
# The definitions, Dagster and all they imported live as long as this code location's process:
# out of the collector's passes (rl_assets/support/long_lived.py). Here, not on `import rl_assets`:
# a notebook or script that imports rldelta's modules keeps its own heap as it was.
freeze_long_lived()
