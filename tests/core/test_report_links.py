"""Reports reachable from the UI: asset metadata links each report file by URL under
$RLDELTA_REPORTS_URL (the server `make ui` starts, or object storage) besides its path, inlines a
markdown report that fits with its relative links made absolute, and the UI copy of INDEX.md
carries only links that resolve there (absolute, or plain text when no URL is known)."""

import dagster as dg
import pytest

from rl_assets.analysis.render.index_md import render_summary
from rl_assets.store import report_dir
from rl_assets.support.report_links import MAX_INLINE_CHARS, file_metadata, url_of

MODEL = "org/m-8B"


@pytest.fixture
def report(rldelta_home, monkeypatch):
    monkeypatch.delenv("RLDELTA_REPORTS_URL", raising=False)
    folder = report_dir(MODEL) / "Q1_behavioral_delta"
    folder.mkdir(parents=True)
    path = folder / "report.md"
    path.write_text("# Q1\n\n![plot](delta.png) see [pairs](../Q3_trace_pairs/pairs.html) or [web](https://x.org/a)\n")
    return path


def test_no_url_without_a_published_reports_folder(report):
    meta = file_metadata("report", report)
    assert meta["report"] == dg.MetadataValue.path(str(report)) and "report_url" not in meta
    assert url_of(report) is None
    # inlined, but a relative link would resolve against the UI's own page: plain text instead (and an
    # image the UI would fetch from an address becomes a link: the UI shows only embedded pixels)
    assert meta["report_content"].value.splitlines()[-1] == "plot see pairs or [web](https://x.org/a)"


def test_url_and_inlined_content_with_absolute_links(report, monkeypatch):
    monkeypatch.setenv("RLDELTA_REPORTS_URL", "http://127.0.0.1:3001/")
    meta = file_metadata("report", report)
    base = f"http://127.0.0.1:3001/{report_dir(MODEL).name}"
    assert meta["report_url"] == dg.MetadataValue.url(f"{base}/Q1_behavioral_delta/report.md")
    assert meta["report_content"].value.splitlines()[-1] == (
        f"[plot]({base}/Q1_behavioral_delta/delta.png) see [pairs]({base}/Q3_trace_pairs/pairs.html) "
        "or [web](https://x.org/a)"
    )


def test_large_report_linked_not_inlined_and_outside_files_get_no_url(report, tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_REPORTS_URL", "https://bucket.example/reports")
    report.write_text("x" * (MAX_INLINE_CHARS + 1))
    meta = file_metadata("report", report)
    assert "report_content" not in meta and meta["report_url"].value.endswith("/Q1_behavioral_delta/report.md")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# not a report\n")
    assert url_of(outside) is None and "path_url" not in file_metadata("path", outside)


STATUSES = [
    {
        "asset": "training_logs",
        "group": "q2",
        "status": "materialized",
        "run_id": "r2",
        "data_version": "v2",
        "inputs": {},
    },
    {
        "asset": "training_metrics",
        "group": "q2",
        "status": "running",
        "run_id": "r3",
        "inputs": {"training_logs": "v1"},
    },
    {
        "asset": "rl_temporal",
        "group": "q2",
        "status": "materialized",
        "run_id": "r1",
        "data_version": "t1",
        "inputs": {"training_metrics": "m1", "rl_traces": "x1"},
    },
]
FINDINGS = ["Run lineage: [job-1](../runs/job-1/lineage.md) — checkpoint 2 of 3 of the job, in training-step order"]


def test_ui_copy_of_index_links_lineage_absolutely_or_not_at_all():
    ui = render_summary(STATUSES, FINDINGS, "http://127.0.0.1:3000", "http://127.0.0.1:3001/org__m-8B")
    assert "[job-1](http://127.0.0.1:3001/runs/job-1/lineage.md)" in ui and "](../" not in ui
    plain = render_summary(STATUSES, FINDINGS, "http://127.0.0.1:3000", None)
    assert "Run lineage: job-1 — checkpoint" in plain and "](../" not in plain


def test_ui_copy_of_index_marks_stale_and_recomputing_inputs():
    ui = render_summary(STATUSES, [], "", None)
    rows = {line.split("|")[1].strip(): line for line in ui.splitlines() if line.startswith("| ")}
    assert "training_logs (stale)" in rows["training_metrics"]  # read v1, the logs are at v2 now
    assert "training_metrics (being recomputed)" in rows["rl_temporal"]
    assert rows["training_logs"].rstrip().endswith("| — |")
