"""The learning audit's result: per task family, what it stores, shows and checks (docs/audit.md).

`analyse_audit` turns the audited rows (audit.audit_paired, with the optional LLM verdicts attached)
into the full audit report (report.build_report) and renders it; `LearningAudit` says what of it the
asset stores (labels, rows, sources, format compliance: what INDEX.md and the run lineage read), its
metadata and its check verdicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rl_assets.analysis.audit import labels
from rl_assets.analysis.audit.compliance import compliance_table
from rl_assets.analysis.audit.contrastive_report import contrastive_summary
from rl_assets.analysis.audit.report import audit_report, build_report, ruler_dependent, rulers_table
from rl_assets.analysis.pairing.report import pairing_section, pairing_verdicts
from rl_assets.analysis.render.index_md import audit_findings
from rl_assets.analysis.render.report_md import Report
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown

ENOUGH_TASKS, RULERS_AGREE = "enough_common_tasks", "rulers_agree"


@dataclass(frozen=True)
class LearningAudit(AnalysisResult):
    """`learning_audit`: `values` is the stored value; `audit` the full report (report.build_report,
    also written as audit.json) and `title` the report's title, both only on a freshly analysed result
    (a value read back from storage has the stored part only)."""

    asset = "learning_audit"
    index_missing = tuple(audit_findings(None))
    report_folder = "audit"
    report_links = {"report": "audit.md"}
    summary_key = "audit"

    audit: dict[str, Any] = field(default_factory=dict, compare=False)
    title: str = ""

    def rows(self) -> list[dict[str, Any]]:
        """One row per task family (numbers, label, rulers, contrastive second opinions); empty for a
        value stored before the audit stored its rows (`has_rows`)."""
        rows: list[dict[str, Any]] = self.values.get("rows") or []
        return rows

    def has_rows(self) -> bool:
        return "rows" in self.values

    def labels(self) -> dict[str, str]:
        """Task family -> its label."""
        found: dict[str, str] = self.values.get("labels") or {}
        return found

    def post_rl_source(self) -> str | None:
        """The post-RL eval dataset the audit read (None when the value does not say)."""
        source: str | None = ((self.values.get("sources") or {}).get("post_rl") or {}).get("source")
        return source

    def report(self) -> Report:
        return audit_report(self.audit, self.title)

    def metadata(self) -> dict[str, Any]:
        rows, audit = self.rows(), self.audit
        return {
            "families": len(rows),
            "labels": dict(Counter(r["label"] for r in rows)),
            "held": f"{audit['held']}/{audit['judged']}" if audit["predictions"] else "no predictions",
            "rulers": Markdown(rulers_table(rows)),
            "ruler_dependent": ", ".join(audit["ruler_dependent"]) or "none",
            "pairing": Markdown("\n".join(pairing_section(audit["pairing"], "#### Task pairing"))),
            "flagged_new_passes": Markdown(contrastive_summary(rows)),
            "format_compliance": Markdown(compliance_table(audit["format_compliance"]) or "no families"),
        }

    def checks(self) -> list[CheckVerdict]:
        return [self.enough_tasks(), self.rulers_agree(), *pairing_verdicts(self.audit["pairing"])]

    def enough_tasks(self) -> CheckVerdict:
        """WARN when a family has too few common tasks or none on both sides; zero families is not a pass."""
        rows = self.rows()
        thin = [r["family"] for r in rows if r["n_tasks"] < labels.MIN_TASKS and r["label"] not in labels.NOT_COMPARED]
        unpaired = [r["family"] for r in rows if r["label"] in labels.NOT_COMPARED]
        reasons = [
            "no task families to audit" if not rows else None,
            f"too few common tasks: {', '.join(thin)}" if thin else None,
            f"not compared (no task on both sides): {', '.join(unpaired)}" if unpaired else None,
        ]
        return CheckVerdict(
            ENOUGH_TASKS,
            passed=bool(rows) and not thin and not unpaired,
            warn=True,
            description="; ".join(filter(None, reasons)) or None,
            metadata={
                "families_below_threshold": ", ".join(thin) or "none",
                "threshold": labels.MIN_TASKS,
                "families": len(rows),
                "families_not_compared": ", ".join(unpaired) or "none",
            },
        )

    def rulers_agree(self) -> CheckVerdict:
        """WARN when a family's label depends on the ruler; zero families is not a pass either."""
        rows = self.rows()
        dependent = ruler_dependent(rows)
        compared = [r["family"] for r in rows if r["rulers"]["depends_on_ruler"] is not None]
        single = [r["family"] for r in rows if r["rulers"]["depends_on_ruler"] is None]
        if not rows:
            description = "no task families to audit"
        elif dependent:
            description = "; ".join(
                next(r["rulers"]["flag"] for r in rows if r["family"] == f) + f" [{f}]" for f in dependent
            )
        elif not compared:
            description = "one ruler only (no family could be re-scored): nothing to cross-check"
        else:
            description = f"{len(compared)} families keep their label under both rulers"
        return CheckVerdict(
            RULERS_AGREE,
            passed=bool(rows) and not dependent,
            warn=True,
            description=description,
            metadata={
                "ruler_dependent": ", ".join(dependent) or "none",
                "compared": len(compared),
                "recorded_ruler_only": ", ".join(single) or "none",
            },
        )

    def index_lines(self) -> list[str]:
        return audit_findings(self.values)


def analyse_audit(
    rows: list[dict[str, Any]],
    *,
    title: str,
    pairing: dict[str, Any],
    format_compliance: list[dict[str, Any]],
    sources: dict[str, Any],
    predictions: dict[str, str] | None = None,
    registration: dict[str, Any] | None = None,
    llm_note: str | None = None,
) -> LearningAudit:
    """The audit of the audited `rows`: predictions checked, the full report built; `title` names the report."""
    audit = build_report(
        rows,
        predictions=predictions,
        registration=registration,
        sources=sources,
        llm_note=llm_note,
        pairing=pairing,
        format_compliance=format_compliance,
    )
    stored = {
        "labels": {r["family"]: r["label"] for r in audit["rows"]},
        # rows and sources: the per-family numbers the run lineage reads (it never reads report files)
        "rows": audit["rows"],
        "sources": audit["sources"],
        "format_compliance": audit["format_compliance"],  # INDEX.md's finding line reads it
    }
    return LearningAudit(stored, audit=audit, title=title)
