"""lineage.md states, per family, when its reward change became significant (the lineage's Holm rule)
next to the audit label path, and names the judge behind each win rate."""

from __future__ import annotations

from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.report import render_markdown


def _row(family, label, lo, hi, p):
    return {
        "family": family,
        "label": label,
        "n_tasks": 40,
        "reward_before": 0.2,
        "reward_after": 0.2 + (lo + hi) / 2,
        "reward_gain": {"estimate": (lo + hi) / 2, "lo": lo, "hi": hi, "p": p},
        "format_gain": 0.0,
        "substance_gain": 0.0,
        "baselines": [],
    }


def _stored() -> dict[str, dict]:
    rows = {
        1: [_row("fmt", "mostly format", 0.4, 0.6, 0.0005), _row("game", "no real gain", -0.1, 0.1, 1.0)],
        2: [_row("fmt", "mostly format", 0.4, 0.6, 0.0005), _row("game", "gamed", -0.05, 0.35, 0.27)],
        3: [_row("fmt", "mostly format", 0.4, 0.6, 0.0005), _row("game", "gamed", -0.05, 0.35, 0.27)],
    }
    out = {}
    for step, audit_rows in rows.items():
        repo = f"org/job-{step}-8B"
        out[repo] = {
            "checkpoint": {"job_name": "job", "rl_config": {"global_step": step}},
            "eval_pair": {
                "benchmark": "b",
                "base_model_name": "org/base",
                "baseline_eval": "org/base-evals",
                "post_rl_eval": f"{repo}-evals",
            },
            "behavioral_delta": {
                "n_boot": 2000,
                "features": [],
                "before": {"solve_rate": {"rate": 0.2, "lo": 0.1, "hi": 0.3}},
                "after": {"solve_rate": {"rate": 0.3, "lo": 0.2, "hi": 0.4}},
                "sources": {"baseline": {"source": "org/base-evals"}, "post-RL": {"source": f"{repo}-evals"}},
            },
            "learning_audit": {"rows": audit_rows, "labels": {r["family"]: r["label"] for r in audit_rows}},
            "judge_verdicts": {
                "judge": "offline-heuristic (not an LLM)",
                "probes": {
                    "most_changed": {
                        "post_rl_win_rate_decisive": {"share": 0.75, "wilson95": [0.6, 0.86]},
                        "judged": 30,
                        "win": {"post-rl": {"count": 21}, "baseline": {"count": 7}},
                    }
                },
            },
        }
    return out


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
