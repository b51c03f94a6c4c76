"""Run lineage: what RL changed across the checkpoints of one training job, and when (docs/lineage.md).

steps (training step of a checkpoint) · members (who enters, who is excluded and why) · emergence
(significance rule, persistence, step-to-step shape) · families (audit label paths) · curves and
rollouts (Q2 alignment) · build (build_lineage) · report (the markdown page; its summary lines,
table rows and training-side sections in report_summary, report_tables, report_sections) · plots (PNG).
"""

from rl_assets.analysis.lineage.build import build_lineage

__all__ = ["build_lineage"]
