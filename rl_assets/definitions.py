"""The one Definitions object: every asset, check, job and sensor of rldelta.

Assets and checks are discovered from the `rl_assets.assets` package, jobs from `rl_assets.jobs`,
sensors from the `sensors` package, so adding a module is all it takes to add one.
"""

from __future__ import annotations

import importlib
import pkgutil

import dagster as dg
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition

import rl_assets.assets
import rl_assets.jobs
import sensors
from resources import build_resources
from rl_assets.io_manager import RlDeltaIOManager
from sensors.automation import with_automation


def _module_objects(package, kinds: tuple[type, ...]) -> list:
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.extend(v for v in vars(module).values() if isinstance(v, kinds))
    return list({id(v): v for v in found}.values())


def build_definitions() -> dg.Definitions:
    assets = dg.map_asset_specs(with_automation, dg.load_assets_from_package_module(rl_assets.assets))
    checks = dg.load_asset_checks_from_package_module(rl_assets.assets)
    jobs = _module_objects(rl_assets.jobs, (dg.JobDefinition, UnresolvedAssetJobDefinition))
    sensor_defs = _module_objects(sensors, (dg.SensorDefinition,))
    return dg.Definitions(
        assets=assets,
        asset_checks=checks,
        jobs=jobs,
        sensors=sensor_defs,
        resources={"io_manager": RlDeltaIOManager(), **build_resources()},
        # Every step of a run in the run's own process: a fresh process per step re-imported Dagster
        # and the code (~3.5 s CPU, ~240 MB each), which dominated a sensor-launched analysis.
        # Pools still cap hub/LLM steps across runs (the in-process executor claims pool slots), and
        # terminating a run ends one process, leaving no step processes behind. See docs/execution.md.
        executor=dg.in_process_executor,
    )


defs = build_definitions()
