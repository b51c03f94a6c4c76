"""The "does not apply to this model" value, report and metadata (no training_logs/, no RL rollout
dataset, no dated rollouts, no training steps): a NotApplicable value with the reason, a report that
says so and why (rendered by analysis/q2/report.py), never an empty success. Shared by q2_training,
q2_rl_temporal and reward_integrity from below the asset layer (docs/contracts.md, "Layers")."""

import dataclasses

import dagster as dg

from rl_assets.analysis.q2.report import not_applicable_files
from rl_assets.support.report_files import write_report
from rl_assets.values.handover import NotApplicable


def not_applicable(repo_id: str, reason: str, revision: str | None = None) -> NotApplicable:
    return NotApplicable(repo_id=repo_id, reason=reason, revision=revision)


def not_applicable_metadata(reason: str) -> dict:
    """The materialization metadata of an asset that does not apply: INDEX.md shows the reason
    (report_index reads `applicable` and `reason`)."""
    return {"applicable": False, "reason": reason}


def write_not_applicable(model_id: str, report: str, info: NotApplicable) -> None:
    """The "does not apply" report in the model's `report` folder (a report_files constant)."""
    write_report(model_id, report, not_applicable_files({"applicable": False, **dataclasses.asdict(info)}))


def not_applicable_output(model_id: str, report: str, info: NotApplicable) -> dg.Output:
    """The "does not apply" report written, and the output that hands `info` on with its reason."""
    write_not_applicable(model_id, report, info)
    return dg.Output(info, metadata=not_applicable_metadata(info.reason))
