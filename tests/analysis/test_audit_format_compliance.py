"""Format compliance in the audit (issue 35): the no-answer share per family before and after, with
intervals, beside accuracy. Inputs are Qwen2.5-Math-shaped outputs ingested for real; the counts below
are the ones written into them."""

from __future__ import annotations

import pytest

from rl_assets.analysis import stats
from rl_assets.analysis.audit import AUDIT_COLUMNS
from rl_assets.analysis.audit.audit import audit_paired
from rl_assets.analysis.audit.compliance import NOT_RECORDED, compliance_section, format_compliance
from rl_assets.analysis.audit.report import build_report, render_markdown
from rl_assets.ingest import ingest_source, read_traces
from support.eval_toolkits import qwen_file, qwen_row


def _side(tmp_path, name, missing: int, correct: int, n: int = 20):
    """n questions, one sample each: the first ``missing`` without an answer, the last ``correct`` right."""
    rows = []
    for i in range(n):
        ok = i >= n - correct
        pred = "" if i < missing else (str(i) if ok else "wrong")
        rows.append(qwen_row(i, f"Question number {i}?", str(i), [pred], [ok]))
    path = qwen_file(tmp_path / name, "math500", rows)
    out = tmp_path / f"{name}.parquet"
    ingest_source(str(path), out, hub=None)
    return read_traces(out, AUDIT_COLUMNS).to_pylist()


def test_answer_extraction_up_accuracy_flat(tmp_path):
    before = _side(tmp_path, "before", missing=8, correct=6)
    after = _side(tmp_path, "after", missing=1, correct=6)
    rows, families, _ = audit_paired(before, after, n_boot=200)
    (fc,) = format_compliance(families)
    assert fc["applicable"] and fc["tasks"] == 20
    assert (fc["before"]["no_answer"], fc["before"]["attempts"]) == (8, 20)
    assert (fc["after"]["no_answer"], fc["after"]["attempts"]) == (1, 20)
    assert fc["before"]["no_answer_ci"] == pytest.approx(list(stats.wilson_interval(8, 20)))
    assert fc["change"] == pytest.approx(-0.35) and fc["significant"]
    assert fc["change_ci"][1] < 0
    assert fc["before"]["accuracy"] == fc["after"]["accuracy"] == 0.3  # 6 of 20 on both sides
    md = "\n".join(compliance_section([fc]))
    assert "## Format compliance" in md
    assert "8/20 = 40.0%" in md and "1/20 = 5.0%" in md and "-35.0 pts" in md and "30.0% (6/20)" in md


def test_the_section_is_in_audit_md_and_json(tmp_path):
    before = _side(tmp_path, "before", missing=2, correct=5)
    after = _side(tmp_path, "after", missing=2, correct=5)
    rows, families, pairing = audit_paired(before, after, n_boot=200)
    report = build_report(rows, pairing=pairing.report, format_compliance=format_compliance(families))
    assert report["format_compliance"][0]["significant"] is False
    assert "## Format compliance" in render_markdown(report, "org/m")


def test_a_source_without_recorded_answers_says_so():
    from rl_assets.analysis.audit.tasks import paired_families

    rows = [{"task_id": f"t{i}", "task_family": "agentic", "reward": 1.0, "answer": None} for i in range(3)]
    families, _ = paired_families(rows, [dict(r) for r in rows], ())
    (fc,) = format_compliance(families)
    assert fc["applicable"] is False and fc["note"] == NOT_RECORDED


def test_index_md_says_it_in_one_line(tmp_path):
    from rl_assets.analysis.render.index_md import audit_findings

    before = _side(tmp_path, "before", missing=12, correct=16, n=40)
    after = _side(tmp_path, "after", missing=2, correct=18, n=40)
    rows, families, _ = audit_paired(before, after, n_boot=200)
    lines = audit_findings({"rows": rows, "format_compliance": format_compliance(families)})
    # 12/40 -> 2/40 without an answer. Newcombe by hand from the Wilson bounds (l, u):
    # d - sqrt((p2-l2)^2 + (u1-p1)^2) = -40.8, d + sqrt((u2-p2)^2 + (p1-l1)^2) = -8.4 (points)
    assert lines[1] == (
        "format compliance (attempts with no extractable answer): math500 30.0% → 5.0% "
        "(-25.0 pts [-40.8, -8.4]; accuracy 40.0% → 45.0%)"
    )
    assert audit_findings({"rows": rows}) == lines[:1]  # an audit stored before the finding existed
