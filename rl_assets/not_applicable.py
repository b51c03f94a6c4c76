"""The Q2 assets' "does not apply to this model" value and report (no training_logs/, no RL
rollout dataset, no dated rollouts): a marker dict with the reason, and a report.md that says so and
why, never an empty success. Shared by q2_training and q2_rl_temporal from below the asset layer
(docs/contracts.md, "Layers")."""

from pathlib import Path

from rl_assets.analysis.report_md import jsonable
from rl_assets.fileutil import atomic_write_json, atomic_write_text


def not_applicable(repo_id: str, reason: str, **extra) -> dict:
    return {"applicable": False, "repo_id": repo_id, "reason": reason, **extra}


def write_not_applicable(out_dir: Path, info: dict) -> None:
    atomic_write_json(out_dir / "report.json", jsonable(info))
    atomic_write_text(out_dir / "report.md", f"# Q2 training metrics\n\n{info['reason']}.\n")
