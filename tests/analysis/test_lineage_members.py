"""Which checkpoints enter a run lineage, in which order, and why the others are excluded."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rl_assets.analysis.lineage.members import select_members
from rl_assets.analysis.lineage.steps import NO_STEP, training_step
from rl_assets.partitions import InvalidRepoId, validate_job_name
from rl_assets.values.handover import TraceTableRef


@pytest.mark.parametrize(
    "repo, config, want",
    [
        ("org/job-40-8B", None, (40, "repo name -<step>-<size>")),
        ("org/job-40-0.5B", {}, (40, "repo name -<step>-<size>")),
        ("org/job-40-8B", {"global_step": 35}, (35, "rl_config global_step")),
        ("org/job-40-8B", {"trainer": {"global_step": "30"}}, (30, "rl_config trainer.global_step")),
        (
            "org/job-40-8B",
            {"export_path": "/x/exports/global_step_25/policy"},
            (25, "rl_config export_path global_step_<N>"),
        ),
        ("org/job-40-8B", {"global_step": True, "step": -1}, (40, "repo name -<step>-<size>")),  # not steps
        ("org/job-final", {"job_name": "job"}, (None, NO_STEP)),
    ],
)
def test_training_step_rl_config_first_then_the_name(repo, config, want):
    assert training_step(repo, config) == want


def test_job_names_must_be_folder_safe():
    assert validate_job_name("rl-gamma_2.1") == "rl-gamma_2.1"
    for bad in ("", "a/b", "../x", "-x", "x.", "a b", "x" * 97):
        with pytest.raises(InvalidRepoId):
            validate_job_name(bad)


def member(
    repo,
    step=None,
    *,
    job="job",
    bench="bench",
    base="org/base",
    baseline="org/base-evals",
    post=None,
    sources=None,
    invalid=None,
    modified="2026-01-01",
    revision="rev1",
):
    post = post or f"{repo}-evals"
    delta = {
        "invalid_for_comparison": invalid,
        "features": [],
        "sources": sources or {"baseline": {"source": baseline}, "post-RL": {"source": post, "revision": revision}},
    }
    config = {"job_name": job} if step is None else {"job_name": job, "global_step": step}
    return {
        "checkpoint": {"job_name": job, "rl_config": config, "last_modified": modified},
        "eval_pair": {"benchmark": bench, "base_model_name": base, "baseline_eval": baseline, "post_rl_eval": post},
        "behavioral_delta": delta,
        "post_rl_traces": TraceTableRef(path=f"tables/{repo}.parquet", rows=4, source=post, revision=revision),
    }


def test_ordered_by_step_not_by_name_and_other_jobs_ignored():
    stored = {
        "org/job-10-8B": member("org/job-10-8B"),
        "org/job-5-8B": member("org/job-5-8B"),
        "org/job-100-8B": member("org/job-100-8B"),
        "org/other-7-8B": member("org/other-7-8B", job="other"),
    }
    sel = select_members("job", stored)
    assert [(m["repo_id"], m["step"]) for m in sel["members"]] == [
        ("org/job-5-8B", 5),
        ("org/job-10-8B", 10),
        ("org/job-100-8B", 100),
    ]
    assert sel["excluded"] == []


def test_each_reason_for_exclusion_is_named():
    stored = {
        "org/a-1-8B": member("org/a-1-8B"),
        "org/a-2-8B": member("org/a-2-8B"),
        "org/a-3-8B": member("org/a-3-8B"),
        "org/other-bench": member("org/other-bench", 4, bench="bench-2"),
        "org/other-base": member("org/other-base", 5, base="org/base-2"),
        "org/other-baseline": member("org/other-baseline", 6, baseline="org/base-evals-rerun"),
        "org/stale": member(
            "org/stale", 7, sources={"baseline": {"source": "org/base-evals"}, "post-RL": {"source": "org/old-evals"}}
        ),
        "org/old-revision": member("org/old-revision", 8, revision="rev1"),
        "org/invalid": member("org/invalid", 9, invalid="the sides share no task_id"),
        "org/no-step": member("org/no-step"),
        "org/a-2-again": member("org/a-2-again", 2, modified="2025-12-01"),
    }
    stored["org/old-revision"]["post_rl_traces"] = replace(
        stored["org/old-revision"]["post_rl_traces"], revision="rev2"
    )
    stored["org/no-pair"] = {**member("org/no-pair", 10), "eval_pair": None}
    stored["org/no-q1"] = {**member("org/no-q1", 11), "behavioral_delta": None}
    for repo in stored:
        stored[repo]["checkpoint"]["job_name"] = "a"
    sel = select_members("a", stored)
    assert [m["repo_id"] for m in sel["members"]] == ["org/a-1-8B", "org/a-2-8B", "org/a-3-8B"]
    why = {e["repo_id"]: e["reason"] for e in sel["excluded"]}
    assert why["org/other-bench"] == "evaluated on 'bench-2'; this lineage is pinned to 'bench'"
    assert why["org/other-base"] == "compared with base 'org/base-2'; this lineage is pinned to 'org/base'"
    assert "baseline eval dataset 'org/base-evals-rerun'" in why["org/other-baseline"]
    assert "computed on org/old-evals" in why["org/stale"] and "re-materialize" in why["org/stale"]
    assert "post_rl_traces now holds rev2" in why["org/old-revision"]
    assert why["org/invalid"] == "Q1 not comparable: the sides share no task_id"
    assert why["org/no-step"] == NO_STEP
    assert (
        why["org/no-pair"] == "eval_pair not materialized" and why["org/no-q1"] == "behavioral_delta not materialized"
    )
    assert why["org/a-2-again"] == "same training step as org/a-2-8B (the newer upload is kept)"


def test_the_pin_follows_the_majority_or_the_request():
    stored = {
        "org/j-1-8B": member("org/j-1-8B", bench="b1"),
        "org/j-2-8B": member("org/j-2-8B", bench="b2"),
        "org/j-3-8B": member("org/j-3-8B", bench="b2"),
    }
    assert [m["step"] for m in select_members("job", stored)["members"]] == [2, 3]
    pinned = select_members("job", stored, benchmark="b1")
    assert [m["step"] for m in pinned["members"]] == [1] and pinned["pinned"]["rule"] == "requested"
    tie = {"org/j-1-8B": member("org/j-1-8B", bench="b1"), "org/j-2-8B": member("org/j-2-8B", bench="b2")}
    assert select_members("job", tie)["pinned"]["benchmark"] == "b2"  # a tie goes to the latest step
