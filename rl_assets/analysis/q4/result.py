"""Q4's result: solve rate per context bin, as the asset emits it and INDEX.md reads it back."""

from __future__ import annotations

import math
from typing import Any

from rl_assets.analysis.q4.context_bins import solve_rate_by_context
from rl_assets.analysis.q4.report import solve_rate_report
from rl_assets.analysis.render.report_md import Report, jsonable
from rl_assets.values.results import AnalysisResult, CheckVerdict


class SolveRateByContext(AnalysisResult):
    """`solve_rate_by_context`: per-side bins with Wilson CIs and the mix-shift / within-bin split."""

    asset = "solve_rate_by_context"
    report_links = {"plot_file": "solve_rate.png"}
    summary_key = "interpretation"

    def known_lengths(self) -> tuple[int, int]:
        """Rows with a known context length, before and after."""
        sides = (self.values[side] for side in ("before", "after"))
        before, after = (side["n"] - side["unknown"] for side in sides)
        return before, after

    def report(self) -> Report:
        return solve_rate_report(self.values)

    def metadata(self) -> dict[str, Any]:
        split = self.values["decomposition"]
        return {
            "n_before": self.values["before"]["n"],
            "n_after": self.values["after"]["n"],
            "mix_shift_pp": float(100 * split["mix_shift"]),
            "within_bin_pp": float(100 * split["within_bin"]),
        }

    def checks(self) -> list[CheckVerdict]:
        before, after = self.known_lengths()
        return [
            CheckVerdict(
                "enough_data",
                passed=before > 0 and after > 0,
                warn=True,
                metadata={"rows_with_length_before": before, "rows_with_length_after": after},
            )
        ]


def analyse_solve_rate(before: Any, after: Any, bins: list[float]) -> SolveRateByContext:
    """Solve rate by context for the two trace tables; `bins` are the lower edges (the last bin is open)."""
    return SolveRateByContext(jsonable(solve_rate_by_context(before, after, edges=[*bins, math.inf])))
