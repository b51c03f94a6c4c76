"""`learning_audit` materialized from two ingested eval-file tables, with a predictions file."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest

from resources.registry import SqlRegistry
from rl_assets.ingest import ingest_source
from support.audit_materialize import checks_by_name, materialize_audit
from support.audit_synth import scenario, write_eval_files

MODEL = "org/rg-rl-1B"
TRAINING_START = datetime(2026, 10, 30, 16, 25, tzinfo=UTC)


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    before, after, expected = scenario()
    refs = {}
    for name, rows in (("baseline_traces", before), ("post_rl_traces", after)):
        write_eval_files(rows, tmp_path / name)
        out = tmp_path / f"{name}.parquet"
        report = ingest_source(str(tmp_path / name), out, hub=None)
        refs[name] = {
            "path": str(out),
            "rows": report.rows_written,
            "source": str(tmp_path / name),
            "revision": "r1",
            "benchmark": "reasoning_gym",
        }
    reg = SqlRegistry(f"sqlite:///{tmp_path / 'registry.sqlite'}")
    reg.create_all()
    reg.insert("models", [{"id": "m1", "name": MODEL, "training_start": TRAINING_START}])
    preds = tmp_path / "predictions.json"
    preds.write_text(json.dumps({"letter_counting": "gamed", "basic_arithmetic": "mostly format", "chain_sum": "gain"}))
    written = datetime(2026, 10, 30, 16, 23, tzinfo=UTC).timestamp()
    os.utime(preds, (written, written))

    result = materialize_audit(MODEL, refs, tmp_path, predictions_path=str(preds))
    return result, expected, tmp_path / "home" / "reports" / "org--rg-rl-1B" / "audit"


def test_writes_json_and_md_with_labels(run):
    result, expected, folder = run
    assert result.success
    out = json.loads((folder / "audit.json").read_text())
    assert {r["family"]: r["label"] for r in out["rows"]} == expected
    md = (folder / "audit.md").read_text()
    assert "## Rules" in md and "**gamed**" in md
    meta = result.asset_materializations_for_node("learning_audit")[0].metadata
    assert "| letter_counting |" in meta["audit"].value
    assert (
        "## Newly passing tasks: earned or exploited?" in md
        and "| letter_counting |" in meta["flagged_new_passes"].value
    )
    assert all("newly_passing" in r["contrastive"] for r in out["rows"])


def test_predictions_checked_against_training_start(run):
    _, _, folder = run
    out = json.loads((folder / "audit.json").read_text())
    reg = out["pre_registration"]
    assert reg["predates_training"] is True and reg["training_start_source"] == "registry models.training_start"
    held = {r["family"]: r["held"] for r in out["rows"] if r["prediction"]}
    assert held == {"letter_counting": True, "basic_arithmetic": False, "chain_sum": True}
    assert out["held"] == 2 and out["judged"] == 3


def test_llm_step_is_reported_as_not_run(run):
    _, _, folder = run
    rows = json.loads((folder / "audit.json").read_text())["rows"]
    assert all(r["audit_verdict"] is None for r in rows)
    assert rows[0]["audit_explanation"] == "llm audit not run: disabled in run config"


def test_thin_family_fails_the_check_as_a_warning(run):
    result, _, _ = run
    check = checks_by_name(result)["enough_common_tasks"]
    assert not check.passed and "word_sorting" in check.metadata["families_below_threshold"].value


def test_rulers_agree_when_the_files_hold_the_installed_scorers_scores(run):
    result, _, folder = run
    check = checks_by_name(result)["rulers_agree"]
    assert check.passed and check.description == "5 families keep their label under both rulers"
    assert check.metadata["ruler_dependent"].value == "none"
    out = json.loads((folder / "audit.json").read_text())
    assert out["ruler_dependent"] == []
    # the synthetic files recorded the installed scorer's own scores: the recorded ruler is it
    recorded = {r["family"]: r["rulers"]["recorded"]["scorer"] for r in out["rows"]}
    assert (
        recorded["chain_sum"]
        == "as recorded by the source; the installed scorer itself reproduces all 40 recorded scores"
    )
    meta = result.asset_materializations_for_node("learning_audit")[0].metadata
    assert "| chain_sum | re-scored | 0.000 → 0.900 [+0.7" in meta["rulers"].value
    assert "## Two rulers" in (folder / "audit.md").read_text()


def test_resources_are_typed_parameters():
    # Like every other asset: typed resources, so Dagster checks them and a missing one is named.
    import inspect

    from resources.llm import LLMResource
    from resources.registry import RegistryResource
    from resources.settings_resource import AnalysisSettings
    from rl_assets.assets.audit import learning_audit

    params = inspect.signature(learning_audit.op.compute_fn.decorated_fn).parameters
    assert {n: params[n].annotation for n in ("settings", "registry", "llm")} == {
        "settings": AnalysisSettings,
        "registry": RegistryResource,
        "llm": LLMResource,
    }


@pytest.mark.usefixtures("run")  # it wrote the two trace tables into tmp_path
def test_a_missing_predictions_file_fails_the_run_naming_model_and_file(tmp_path):
    # predictions_path (run config) is the one way to pass predictions: no deployment-wide setting
    refs = {
        name: {"path": str(tmp_path / f"{name}.parquet"), "source": "s", "revision": "r1", "benchmark": "b"}
        for name in ("baseline_traces", "post_rl_traces")
    }
    missing = tmp_path / "no-such-predictions.json"
    with pytest.raises(Exception) as failed:
        materialize_audit(MODEL, refs, tmp_path, predictions_path=str(missing))
    assert f"learning_audit {MODEL}" in str(failed.value) and str(missing) in str(failed.value), failed.value
