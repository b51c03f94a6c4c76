"""lineage.md states, per family, when its reward change became significant (the lineage's Holm rule)
next to the audit label path, and names the judge behind each win rate."""

from __future__ import annotations

from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.report import render_markdown
from support.lineage_stored import audited_job as _stored


def test_family_reward_emergence_is_reported_next_to_the_label_path():
    r = build_lineage("job", _stored(), n_boot=200)
    summary = "\n".join(r["summary"])
    assert (
        "**fmt**: mostly format from step 1 (job-1-8B); persists; reward change significant from step 1, persists."
        in summary
    )
    assert "**game**: gamed from step 2 (job-2-8B); persists; reward change never significant" in summary
    md = render_markdown(r, {})
    assert (
        "| fmt | mostly format | mostly format | mostly format | mostly format at step 1 | persists | step 1 "
        "(persists) |" in md
    )
    assert "| game | no real gain | gamed | gamed | gamed at step 2 | persists | never significant |" in md


def test_the_judge_behind_the_win_rates_is_named():
    md = render_markdown(build_lineage("job", _stored(), n_boot=200), {})
    assert "offline-heuristic (not an LLM): most_changed 75.0% [60.0%, 86.0%]" in md


def test_index_links_point_from_a_members_report_folder_to_its_jobs_lineage(tmp_path):
    from rl_assets.analysis.lineage.index_links import index_links

    folder = tmp_path / "reports" / "org--b-20-8B"
    report = str(tmp_path / "reports" / "runs" / "job" / "lineage.md")
    lineages = [("job", ["org/a-10-8B", "org/b-20-8B", "org/c-30-8B"], report), ("other", ["org/a-10-8B"], report)]
    assert index_links("org/b-20-8B", folder, lineages) == [
        "Run lineage: [job](../runs/job/lineage.md) — checkpoint 2 of 3 of the job, in training-step order"
    ]
