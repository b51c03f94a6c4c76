"""The model comparison's result: every model on one pinned benchmark, as the asset shows it (docs/compare.md).

The comparison is not stored as an asset value (its report folder is the record; the comparison sensor
reads `benchmark_id` from the materialization), so `ModelComparison.values` is the comparison itself
(comparison.compare) and the asset records only the report and metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rl_assets.analysis.compare.comparison import compare
from rl_assets.analysis.compare.report import comparison_report
from rl_assets.analysis.render.figures import markdown_image
from rl_assets.analysis.render.report_md import Report
from rl_assets.values.results import AnalysisResult, Markdown


@dataclass(frozen=True)
class ModelComparison(AnalysisResult):
    """`model_comparison`: the ranked models, those without enough data, the excluded ones and why."""

    asset = "model_comparison"
    per_model = False
    report_links = {"report": "comparison.md"}
    summary_key = "comparison"

    rendered: Report | None = field(default=None, compare=False)

    def ranked(self) -> list[dict[str, Any]]:
        """The models with enough data, largest change first."""
        ranked: list[dict[str, Any]] = self.values["ranked"]
        return ranked

    def report(self) -> Report:
        return self.rendered if self.rendered is not None else comparison_report(self.values)

    def metadata(self) -> dict[str, Any]:
        bench, ranked = self.values["benchmark"], self.ranked()
        report = self.report()
        return {
            "benchmark": bench["name"],
            "benchmark_id": str(bench["id"]),  # what the comparison sensor keeps it pinned to
            "models_ranked": len(ranked),
            "models_excluded": len(self.values["excluded"]),
            "real_changes": sum(bool(r["significant"] and r["above_noise_floor"]) for r in ranked),
            "models": sorted(r["model_id"] for r in ranked),
            "plot": Markdown(markdown_image("Δ pass rate per model", report.plots["comparison.png"])),
        }


def analyse_comparison(
    benchmark: dict[str, Any],
    rows: list[dict[str, Any]],
    excluded: list[dict[str, Any]],
    pairings: list[dict[str, Any]],
) -> ModelComparison:
    """Rank the `rows` (one per model, model_row) on the pinned `benchmark` ({id, name})."""
    result = compare(benchmark, rows, excluded, pairings)
    return ModelComparison(result, rendered=comparison_report(result))
