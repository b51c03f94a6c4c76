"""The Q2 assets' "does not apply to this model" value and report (no training_logs/, no RL
rollout dataset, no dated rollouts): a NotApplicable value with the reason, and a report that says so and
why (rendered by analysis/q2/report.py), never an empty success. Shared by q2_training and
q2_rl_temporal from below the asset layer (docs/contracts.md, "Layers")."""

import dataclasses

from rl_assets.analysis.q2.report import not_applicable_files
from rl_assets.support.report_files import write_report
from rl_assets.values.handover import NotApplicable


def not_applicable(repo_id: str, reason: str, revision: str | None = None) -> NotApplicable:
    return NotApplicable(repo_id=repo_id, reason=reason, revision=revision)


def write_not_applicable(model_id: str, report: str, info: NotApplicable) -> None:
    """The "does not apply" report in the model's `report` folder (a report_files constant)."""
    write_report(model_id, report, not_applicable_files({"applicable": False, **dataclasses.asdict(info)}))
