"""The trace assets on eval-toolkit outputs (issue 35): rows not understood fail the asset (once, naming
the keys), a Qwen2.5-Math output folder is read with the toolkit's own accuracy as a check."""

import json

import dagster as dg
import pytest

from resources.settings_resource import AnalysisSettings
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from support.core_world import MODEL, RESOURCES, core_world
from support.eval_toolkits import qwen_file, qwen_row
from tests.support.results import materialized


@pytest.fixture
def world(tmp_path, monkeypatch):
    return core_world(tmp_path, monkeypatch)


def test_rows_not_understood_fail_the_asset_once_naming_their_keys(world, tmp_path):
    local = tmp_path / "eval_outputs.jsonl"
    local.write_text("".join(json.dumps({"idx": i, "question": "q", "answer": "a"}) + "\n" for i in range(5)))
    settings = AnalysisSettings(post_rl_eval=str(local), baseline_eval="org/evals-base")
    result = dg.materialize(
        [eval_pair, eval_traces],
        selection=["eval_pair", "post_rl_traces"],
        instance=world,
        partition_key=MODEL,
        resources={**RESOURCES, "settings": settings},
        raise_on_error=False,
    )
    assert not result.success
    events = [e.event_type for e in result.all_events]
    assert dg.DagsterEventType.STEP_UP_FOR_RETRY not in events  # the same bytes would fail again
    failure = next(e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE)
    message = failure.event_specific_data.error.message
    assert str(local) in message and "5 rows found, 0 understood" in message
    assert "['answer', 'idx', 'question']" in message and "Qwen2.5-Math" in message
    assert not materialized(result, "post_rl_traces")  # nothing published


def test_qwen_math_outputs_are_traces_with_the_toolkit_check(world, tmp_path):
    rows = [qwen_row(i, f"What is {i}+{i}?", str(2 * i), [str(2 * i), ""], [True, i % 2 == 0]) for i in range(6)]
    qwen_file(tmp_path / "base", "math500", rows)
    qwen_file(tmp_path / "post", "math500", rows, acc=10.0)  # a summary the rows cannot give
    settings = AnalysisSettings(baseline_eval=str(tmp_path / "base"), post_rl_eval=str(tmp_path / "post"))
    result = dg.materialize(
        [eval_pair, eval_traces],
        instance=world,
        partition_key=MODEL,
        resources={**RESOURCES, "settings": settings},
        raise_on_error=False,
    )
    checks = {(e.asset_key.path[-1], e.check_name): e for e in result.get_asset_check_evaluations()}
    assert result.asset_value("baseline_traces").rows == 12
    assert checks[("baseline_traces", "every_input_accounted_for")].passed
    assert checks[("baseline_traces", "matches_toolkit_metrics")].passed
    failed = checks[("post_rl_traces", "matches_toolkit_metrics")]
    assert not failed.passed and "1 of 3 compared values differ" in failed.description
    assert "| acc | 10.0 | 75.0 | **no** |" in failed.metadata["comparison"].value  # 9 of 12 samples right


def test_real_lm_eval_pair_few_shot_change_is_a_warn_finding_of_the_audit(tmp_path, monkeypatch):
    """The real lm-eval excerpt (tests/fixtures/realdata/lm_eval_masakhaner_luo): the 5-shot run as the
    baseline, the 0-shot run as post-RL. num_fewshot 5 vs 0 is read from the two results json."""
    from pathlib import Path

    from rl_assets.ingest import ingest_source
    from support.audit_materialize import checks_by_name, materialize_audit

    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    real = Path(__file__).parents[1] / "fixtures" / "realdata" / "lm_eval_masakhaner_luo"
    refs = {}
    for name, side in (("baseline_traces", "five_shot"), ("post_rl_traces", "zero_shot")):
        out = tmp_path / f"{name}.parquet"
        report = ingest_source(str(real / side), out, hub=None)
        refs[name] = {"path": str(out), "rows": report.rows_written, "source": side, "benchmark": "masakhaner"}
    result = materialize_audit("org/ner-rl-2B", refs, tmp_path)
    assert result.success
    settings = checks_by_name(result)["same_generation_settings"]
    assert settings.passed is False and settings.severity == dg.AssetCheckSeverity.WARN
    assert "few_shot" in settings.description
    md = (tmp_path / "home" / "reports" / "org--ner-rl-2B" / "audit" / "audit.md").read_text()
    assert "## Format compliance" in md
    # common docs 0-1: both 5-shot extractions empty, 0-shot doc 1 empty; span F1 has no per-sample accuracy
    assert "| masakhaner_luo_prompt_2 | 2 | 2/2 = 100.0% [34.2%, 100.0%] | 1/2 = 50.0% [9.5%, 90.5%] |" in md
