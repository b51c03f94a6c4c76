"""Judge with nothing judged: the parse-failure rate is unknown (None), the check fails, the report says so."""

import json

import dagster as dg
import pytest

from resources.hub import HubResource
from resources.llm import LLMResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.judge.report import render_markdown
from rl_assets.analysis.judge.run import build_report
from rl_assets.assets.q1_llm_judge import judge_verdicts
from support.llm_server import materialize_with_traces

PID = "org/rl-model"


pytestmark = pytest.mark.usefixtures("rldelta_home")  # <tmp_path>/home, no endpoint or key set


def test_build_report_without_judgments_has_no_rate():
    report = build_report([], model_id=PID, judge="j", attempt_rule="first", seed=0, common_tasks=0, calls={})
    assert report["judgments_requested"] == 0 and report["parse_failure_rate"] is None
    md = render_markdown(report)
    assert "parse-failure rate n/a (no judgments)" in md and "0.0%" not in md


def test_no_judgments_fail_the_check(tmp_path):
    result = materialize_with_traces(
        tmp_path,
        judge_verdicts,
        {"llm": LLMResource(), "settings": AnalysisSettings(), "hub": HubResource()},
        {"ops": {"judge_verdicts": {"config": {"pairs_per_probe": 0, "random_pairs": 0}}}},
        partition=PID,
    )
    assert result.success
    report_dir = tmp_path / "home" / "reports" / "org--rl-model" / "Q1_llm_judge"
    report = json.loads((report_dir / "report.json").read_text())
    assert report["judgments_requested"] == 0 and report["parse_failure_rate"] is None
    assert "n/a (no judgments)" in (report_dir / "report.md").read_text()
    (check,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "judge_parse_failure_rate"]
    assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert check.description == "no judgments were made"
