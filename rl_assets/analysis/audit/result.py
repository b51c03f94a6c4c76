"""The learning audit's result, as INDEX.md reads it back: its labels per family and its format-compliance line."""

from __future__ import annotations

from rl_assets.analysis.render.index_md import audit_findings
from rl_assets.values.results import AnalysisResult


class LearningAudit(AnalysisResult):
    """`learning_audit`: per task family, real skill, format, or a gamed reward (docs/audit.md)."""

    asset = "learning_audit"
    index_missing = tuple(audit_findings(None))

    def index_lines(self) -> list[str]:
        return audit_findings(self.values)
