"""How checks read in the UI: a condition absent by design (no training logs, no RL rollout dataset)
is a passed check saying "not applicable" and why, never a red failure; a real fault still fails;
and no check description holds a raw `<tag>` (the UI renders descriptions as markdown and swallows
`<org>` as an HTML tag, showing "/<job_name>")."""

import re

import dagster as dg

from rl_assets.assets.checkpoint import _check_results
from rl_assets.definitions import defs

MANIFEST = {
    "has_weights": True,
    "weights_files": ["model.safetensors"],
    "has_training_logs": False,
    "training_logs_files": [],
    "rl_traces_exists": False,
    "rl_traces_dataset": None,
    "rl_traces_candidates": ["org/rl-7"],
    "job_name_source": "rl_config.json",
    "has_readme": True,
}


def test_absent_by_design_passes_as_not_applicable():
    results = {r.check_name: r for r in _check_results(MANIFEST)}
    for name in ("has_training_logs", "rl_traces_dataset_exists"):
        result = results[name]
        assert result.passed and result.metadata["applicable"].value is False, name
        assert result.description.startswith("not applicable: ") and "do not apply" in result.description
    assert "org/rl-7" in results["rl_traces_dataset_exists"].metadata["detail"].value  # what was looked for


def test_a_real_fault_still_fails():
    results = {r.check_name: r for r in _check_results({**MANIFEST, "has_weights": False, "weights_files": []})}
    assert not results["has_weights"].passed and results["has_weights"].severity == dg.AssetCheckSeverity.ERROR
    assert results["has_readme"].passed and not _readme_missing_passes()


def _readme_missing_passes() -> bool:
    return {r.check_name: r for r in _check_results({**MANIFEST, "has_readme": False})}["has_readme"].passed


def test_no_check_description_holds_a_raw_tag():
    specs = [spec for a in defs.assets if isinstance(a, dg.AssetsDefinition) for spec in a.check_specs]
    assert len(specs) > 10
    raw = {spec.name: spec.description for spec in specs if re.search(r"<[A-Za-z/!]", spec.description or "")}
    assert not raw, raw
    described = {spec.name: spec.description for spec in specs}
    # plain words where they serve: no entity for a reader of the raw text to decode (issue 36)
    assert (
        "dataset org/job_name exists" in described["rl_traces_dataset_exists"]
        and "&" not in described["rl_traces_dataset_exists"]
    )
