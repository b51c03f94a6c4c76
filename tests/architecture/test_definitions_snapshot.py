"""What rl_assets/definitions.py holds, pinned: asset keys (group, partitioning), asset checks, jobs
and sensors, against the committed tests/snapshots/definitions.json.

An asset, check, job or sensor added, dropped or moved to another group fails this test with a diff
of the two listings. When the change is intended, rewrite the snapshot and commit it with the change:

    RLDELTA_UPDATE_SNAPSHOTS=1 bash scripts/run_tests.sh tests/architecture/test_definitions_snapshot.py

(the test then rewrites the file and reports itself skipped; review `git diff tests/snapshots/`).
"""

from __future__ import annotations

import ast
import difflib
import json
import os
from pathlib import Path

import dagster as dg
import pytest

from rl_assets.partitions import models_partitions

SNAPSHOT = Path(__file__).parents[1] / "snapshots" / "definitions.json"
UPDATE_VAR = "RLDELTA_UPDATE_SNAPSHOTS"


def _partitioning(partitions_def) -> str | None:
    if partitions_def is None:
        return None
    return getattr(partitions_def, "name", None) or type(partitions_def).__name__


def listing(defs: dg.Definitions) -> dict:
    """The user-visible definitions as plain sorted JSON (Dagster's internal `__` jobs left out)."""
    graph = defs.resolve_asset_graph()
    assets = {}
    for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = graph.get(key)
        # one line per asset, so a diff line names the asset it is about
        assets[key.to_user_string()] = f"group={node.group_name} partitions={_partitioning(node.partitions_def)}"
    return {
        "assets": assets,
        "asset_checks": sorted(f"{k.asset_key.to_user_string()}:{k.name}" for k in graph.asset_check_keys),
        "jobs": sorted(j.name for j in defs.resolve_all_job_defs() if not j.name.startswith("__")),
        # each job's assets: an asset that drops out of a job (analyze_model above all) shows in the diff
        "job_assets": {
            j.name: sorted(k.to_user_string() for k in j.asset_layer.selected_asset_keys)
            for j in defs.resolve_all_job_defs()
            if not j.name.startswith("__")
        },
        "sensors": sorted(s.name for s in defs.sensors),
    }


def as_text(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def mismatch(expected: str, actual: str) -> str | None:
    """None when equal; else a unified diff (snapshot -> code) and how to accept the change."""
    if expected == actual:
        return None
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(True),
            actual.splitlines(True),
            f"{SNAPSHOT.name} (committed)",
            "rl_assets/definitions.py (now)",
        )
    )
    return (
        f"the definitions changed ('-' only in the snapshot, '+' only in the code):\n{diff}\n"
        f"If this is intended, rewrite the snapshot and commit it:\n"
        f"  {UPDATE_VAR}=1 bash scripts/run_tests.sh tests/architecture/test_definitions_snapshot.py"
    )


def test_definitions_match_the_committed_snapshot():
    from rl_assets.definitions import defs

    actual = as_text(listing(defs))
    if os.environ.get(UPDATE_VAR):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(actual)
        pytest.skip(f"{UPDATE_VAR} set: {SNAPSHOT} rewritten; review and commit it")
    assert SNAPSHOT.is_file(), f"no snapshot at {SNAPSHOT}: run with {UPDATE_VAR}=1 to write it"
    problem = mismatch(SNAPSHOT.read_text(), actual)
    assert problem is None, problem


def test_an_added_or_dropped_asset_fails_with_a_readable_diff():
    from rl_assets import definitions
    from rl_assets.assets.report_index import build_analysis_index

    @dg.asset(name="surprise_asset", partitions_def=models_partitions, group_name="q1")
    def surprise_asset():
        return 1

    analysis = [a for a in definitions.ANALYSIS if dg.AssetKey("learning_audit") not in a.keys]
    others = [a for a in definitions.ASSETS if a not in definitions.ANALYSIS and a is not definitions.analysis_index]
    changed = dg.Definitions(
        assets=[*analysis, build_analysis_index(analysis), *others, surprise_asset],
        jobs=definitions.JOBS,
        sensors=definitions.SENSORS,
        resources=definitions.defs.resources,
    )
    problem = mismatch(SNAPSHOT.read_text(), as_text(listing(changed)))
    assert problem is not None
    changed_lines = [ln.split('"')[1] for ln in problem.splitlines() if ln[:1] in "+-" and ln.count('"') >= 2]
    assert "surprise_asset" in changed_lines and "learning_audit" in changed_lines, problem
    assert "learning_audit:rulers_agree" in changed_lines, problem  # its checks go with it
    assert any(ln.startswith("-") and '"learning_audit",' in ln for ln in problem.splitlines()), problem  # and its jobs
    assert f"{UPDATE_VAR}=1 bash scripts/run_tests.sh tests/architecture/test_definitions_snapshot.py" in problem


def test_definitions_import_no_private_dagster_module():
    source = Path(__file__).resolve().parents[2] / "rl_assets" / "definitions.py"
    tree = ast.parse(source.read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not [m for m in imported if m.startswith("dagster._")], sorted(imported)


def test_every_asset_job_and_sensor_defined_in_the_packages_is_listed():
    """An asset (or job, or sensor) written in rl_assets/assets, rl_assets/jobs or sensors/ but left out
    of definitions.py would never run and the snapshot would not notice: the explicit lists must hold
    everything the packages define."""
    import importlib
    import pkgutil

    import rl_assets.assets
    import rl_assets.jobs
    import sensors
    from rl_assets import definitions

    listed = {id(x) for x in (*definitions.JOBS, *definitions.SENSORS)}
    # assets by key: the analysis assets are listed as copies that carry their ANALYSES group
    listed_keys = {key for asset in definitions.ASSETS for key in asset.keys}
    kinds = (dg.AssetsDefinition, dg.JobDefinition, dg.SensorDefinition)
    # define_asset_job returns a class Dagster does not export: recognised by name, not imported
    job_types = {"UnresolvedAssetJobDefinition"}
    missing = []
    for package in (rl_assets.assets, rl_assets.jobs, sensors):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                if isinstance(value, dg.AssetsDefinition):
                    if not set(value.keys) <= listed_keys:
                        missing.append(f"{module.__name__}.{name}")
                elif (isinstance(value, kinds) or type(value).__name__ in job_types) and id(value) not in listed:
                    missing.append(f"{module.__name__}.{name}")
    assert not missing, "defined but not listed in rl_assets/definitions.py: " + ", ".join(sorted(missing))


def unlisted_analyses(packages=None) -> list[str]:
    """Per-model (models-partitioned) assets defined in an asset module but missing from ANALYSES."""
    import importlib
    import pkgutil

    import rl_assets.assets
    from rl_assets.assets import ANALYSIS
    from rl_assets.definitions import analysis_index

    listed = {key for asset in (*ANALYSIS, analysis_index) for key in asset.keys}
    missing = []
    for package in packages or (rl_assets.assets,):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                if (
                    isinstance(value, dg.AssetsDefinition)
                    and value.partitions_def == models_partitions
                    and not set(value.keys) <= listed
                ):
                    missing.append(f"{module.__name__}.{name}")
    return sorted(missing)


def test_every_per_model_asset_is_in_the_list_of_analyses():
    """A per-model asset left out of ANALYSES (rl_assets/assets/__init__.py) would drop out of
    analyze_model and INDEX.md with no error: it fails here instead."""
    missing = unlisted_analyses()
    assert not missing, "per-model assets not in ANALYSES (rl_assets/assets/__init__.py): " + ", ".join(missing)


def test_each_listed_asset_is_in_the_group_of_its_line():
    """The group is written once, in ANALYSES: the defined asset carries its line's group whatever its
    decorator says, and no analysis decorator names one (a second place to keep in step)."""
    from rl_assets.assets import ANALYSES
    from rl_assets.definitions import defs

    graph = defs.resolve_asset_graph()
    wrong = [
        f"{key.to_user_string()}: group {graph.get(key).group_name!r}, listed under {group!r}"
        for group, assets in ANALYSES
        for asset in assets
        for key in asset.keys
        if graph.get(key).group_name != group
    ]
    assert not wrong, "\n".join(wrong)
    named = [
        f"{asset.node_def.name}: {asset.group_names_by_key[key]!r}"
        for _, assets in ANALYSES
        for asset in assets
        for key in asset.keys
        if asset.group_names_by_key[key] != "default"
    ]
    assert not named, "analysis assets whose decorator names a group (ANALYSES gives it): " + ", ".join(named)


def test_analyze_model_runs_exactly_the_listed_analyses_and_the_index():
    from rl_assets.assets import ANALYSIS
    from rl_assets.definitions import defs

    job = defs.resolve_job_def("analyze_model")
    expected = {k for a in ANALYSIS for k in a.keys} | {dg.AssetKey("analysis_index")}
    assert set(job.asset_layer.selected_asset_keys) == expected
