"""Run lineage: each reward-integrity onset mapped to the checkpoints saved before and after it, and
shown beside the behaviour and audit-label emergence points (table, summary and curves plot)."""

from __future__ import annotations

from test_lineage_report import _stored

from rl_assets.analysis.integrity.result import RewardIntegrity
from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.integrity import between, integrity_lineage
from rl_assets.analysis.lineage.plots import curves_png
from rl_assets.analysis.lineage.report import render_markdown
from rl_assets.values.handover import StepTableRef

MEMBERS = [{"repo_id": f"org/job-{s}-8B", "step": s} for s in (10, 20, 30)]
VALUE = {
    "applicable": True,
    "verdict": "reward earned outside the task",
    "verdict_reason": "holds: …",
    "onsets": {"non_task_term_share": 20, "length_collapse": 25, "entropy_collapse": 5},
}


def test_an_onset_lies_after_the_checkpoints_saved_before_it_and_inside_the_first_one_at_or_after_it():
    assert between(20, MEMBERS) == {
        "before": "org/job-10-8B",
        "before_step": 10,
        "after": "org/job-20-8B",
        "after_step": 20,
    }
    assert between(25, MEMBERS)["before_step"] == 20 and between(25, MEMBERS)["after_step"] == 30
    assert between(5, MEMBERS)["before"] is None and between(5, MEMBERS)["after_step"] == 10
    assert between(31, MEMBERS)["before_step"] == 30 and between(31, MEMBERS)["after"] is None


def test_onsets_sit_beside_the_emergence_points_in_step_order():
    features = [{"feature": "tool_errors", "direction": "decrease", "first_step": 20}]
    families = [{"family": "chain_sum", "label_path": {"label": "gamed", "at_step": 30}}]
    out = integrity_lineage(
        [("org/job-10-8B", None), ("org/job-30-8B", RewardIntegrity(VALUE))], None, MEMBERS, features, families
    )
    assert out["source"] == "org/job-30-8B" and out["verdict"] == VALUE["verdict"]
    assert [o["signal"] for o in out["onsets"]] == ["entropy_collapse", "non_task_term_share", "length_collapse"]
    assert [(e["step"], e["kind"]) for e in out["events"]] == [
        (5, "integrity onset"),
        (20, "behaviour"),
        (20, "integrity onset"),
        (25, "integrity onset"),
        (30, "audit label"),
    ]
    none = integrity_lineage(
        [("org/job-10-8B", RewardIntegrity({"applicable": False}))], None, MEMBERS, features, families
    )
    assert none["verdict"] is None and none["onsets"] == [] and len(none["events"]) == 2


def test_the_checkpoint_whose_logs_gave_the_curves_supplies_the_verdict():
    other = {**VALUE, "onsets": {}, "verdict": "healthy"}
    candidates = [("org/job-10-8B", RewardIntegrity(VALUE)), ("org/job-30-8B", RewardIntegrity(other))]
    out = integrity_lineage(candidates, "org/job-10-8B", MEMBERS, [], [])
    assert out["source"] == "org/job-10-8B" and len(out["onsets"]) == 3


def test_lineage_report_and_plot_show_the_onsets():
    stored = _stored()
    steps = list(range(1, 4))
    curves = {"step": steps, "reward": [0.1, 0.5, 0.9]}
    for repo in stored:
        stored[repo]["training_metrics"] = StepTableRef(steps_table=f"tables/steps/{repo}.parquet", curves=curves)
        stored[repo]["reward_integrity"] = {**VALUE, "onsets": {"non_task_term_share": 2}}
    r = build_lineage("job", stored, n_boot=200)
    assert r["integrity"]["onsets"] == [
        {
            "signal": "non_task_term_share",
            "step": 2,
            "before": "org/job-1-8B",
            "before_step": 1,
            "after": "org/job-2-8B",
            "after_step": 2,
        }
    ]
    assert any(
        line.startswith(
            "Reward integrity (job-3-8B): **reward earned outside the task**; non_task_term_share "
            "from step 2 (after step 1, by step 2)"
        )
        for line in r["summary"]
    )
    md = render_markdown(r, {})
    assert "## Reward integrity onsets beside the emergence points" in md
    assert "| 2 | integrity onset | non_task_term_share | after step 1, by step 2 |" in md
    assert "| 2 | audit label | game: gamed | — |" in md
    assert curves_png(r)[:4] == b"\x89PNG"
