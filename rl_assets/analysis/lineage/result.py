"""The run lineage's result: one RL job's lineage as the asset shows and checks it (docs/lineage.md).

The lineage is not stored as an asset value (lineage.json in the job's report folder is the record;
rl_assets/support/lineage_records.py reads the materialization's metadata), so `RunLineage.values` is
build_lineage's result and the asset records the report, metadata and three check verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rl_assets.analysis.lineage.report import lineage_report
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import Report
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown, not_applicable_verdict

ENOUGH, COMPARABLE, CURVES = "enough_checkpoints", "all_checkpoints_comparable", "training_curves_found"


@dataclass(frozen=True)
class RunLineage(AnalysisResult):
    """`run_lineage`: `values` is build_lineage's result; `found` how many analysed checkpoints the job
    has (members and excluded ones); `rendered` the report, drawn once."""

    asset = "run_lineage"
    per_model = False
    report_links = {"report": "lineage.md"}
    summary_key = "lineage"

    found: int = 0
    rendered: Report | None = field(default=None, compare=False)

    def members(self) -> list[str]:
        """The repo ids that entered the lineage, in step order."""
        return [str(m["repo_id"]) for m in self.values["members"]]

    def excluded(self) -> list[dict[str, Any]]:
        """The job's analysed checkpoints left out, each with its reason."""
        excluded: list[dict[str, Any]] = self.values["excluded"]
        return excluded

    def report(self) -> Report:
        return self.rendered if self.rendered is not None else lineage_report(self.values)

    def metadata(self) -> dict[str, Any]:
        return {
            "members": self.members(),
            "steps": [m["step"] for m in self.values["members"]],
            "benchmark": str(self.values["pinned"]["benchmark"]),
            "n_checkpoints": len(self.members()),
            "n_excluded": len(self.excluded()),
        }

    def checks(self) -> list[CheckVerdict]:
        return [self.enough_checkpoints(), self.all_comparable(), self.curves_found()]

    def enough_checkpoints(self) -> CheckVerdict:
        """One checkpoint has no lineage to draw, by design (not applicable): red must mean something is wrong."""
        n, job = len(self.members()), self.values["job"]
        counts = {"checkpoints": n, "job_checkpoints_found": self.found}
        if self.found < 2:
            found = (
                f"1 checkpoint of job {job} is analysed"
                if self.found
                else f"no checkpoint of job {job} is analysed yet"
            )
            return not_applicable_verdict(ENOUGH, found + "; a lineage compares two or more", **counts)
        return CheckVerdict(
            ENOUGH,
            passed=n >= 2,
            warn=True,
            description=f"{n} of the job's {self.found} analysed checkpoints entered the lineage"
            + ("" if n >= 2 else " (see all_checkpoints_comparable for why the others did not)"),
            metadata=counts,
        )

    def all_comparable(self) -> CheckVerdict:
        excluded = "\n".join(f"- {md_code(e['repo_id'])}: {md_text(e['reason'])}" for e in self.excluded())
        return CheckVerdict(
            COMPARABLE, passed=not self.excluded(), warn=True, metadata={"excluded": Markdown(excluded or "none")}
        )

    def curves_found(self) -> CheckVerdict:
        curves = self.values["curves"]
        if curves["source"]:
            return CheckVerdict(CURVES, passed=True, metadata={"detail": curves["note"]})
        # a job published without training logs: by design, not a fault
        return not_applicable_verdict(CURVES, curves["note"] or "no training logs in the job's checkpoints")


def lineage_result(lineage: dict[str, Any], found: int) -> RunLineage:
    """The lineage build_lineage made of a job with `found` analysed checkpoints, with its report drawn."""
    return RunLineage(lineage, found=found, rendered=lineage_report(lineage))
