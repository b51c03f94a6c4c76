"""`learning_audit` materialized from two ingested eval-file tables, with a predictions file."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

import dagster as dg

from resources.llm import default_llm_resource
import pytest
from test_audit_synth import scenario, write_eval_files

from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.audit import learning_audit
from rl_assets.ingest import ingest_source

MODEL = "org/rg-rl-1B"
TRAINING_START = datetime(2026, 10, 30, 16, 25, tzinfo=timezone.utc)


def _table_asset(name: str, ref: dict):
    @dg.asset(name=name, partitions_def=learning_audit.partitions_def)
    def _stub():
        return ref

    return _stub


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    before, after, expected = scenario()
    refs = {}
    for name, rows in (("baseline_traces", before), ("post_rl_traces", after)):
        write_eval_files(rows, tmp_path / name)
        out = tmp_path / f"{name}.parquet"
        report = ingest_source(str(tmp_path / name), out, hub=None)
        refs[name] = {"path": str(out), "rows": report.rows_written, "source": str(tmp_path / name),
                      "revision": "r1", "benchmark": "reasoning_gym"}
    reg = SqlRegistry(f"sqlite:///{tmp_path / 'registry.sqlite'}")
    reg.create_all()
    reg.insert("models", [{"id": "m1", "name": MODEL, "training_start": TRAINING_START}])
    preds = tmp_path / "predictions.json"
    preds.write_text(json.dumps({"letter_counting": "gamed", "basic_arithmetic": "mostly format",
                                 "chain_sum": "gain"}))
    written = datetime(2026, 10, 30, 16, 23, tzinfo=timezone.utc).timestamp()
    os.utime(preds, (written, written))

    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("models", [MODEL])
    result = dg.materialize(
        [_table_asset(n, r) for n, r in refs.items()] + [learning_audit],
        partition_key=MODEL, instance=instance,
        resources={"settings": AnalysisSettings(n_boot=300), "llm": default_llm_resource(),
                   "registry": RegistryResource(url=f"sqlite:///{tmp_path / 'registry.sqlite'}"),
                   "io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "io"))},
        run_config={"ops": {"learning_audit": {"config": {"predictions_path": str(preds), "llm_audit": False}}}},
    )
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
    (check,) = result.get_asset_check_evaluations()
    assert not check.passed and "word_sorting" in check.metadata["families_below_threshold"].value
