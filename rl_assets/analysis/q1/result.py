"""Q1's result: the behavioural delta, as the asset emits it and INDEX.md reads it back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rl_assets.analysis import stats
from rl_assets.analysis.pairing.report import pairing_section, pairing_verdicts
from rl_assets.analysis.q1.behavioral_delta import compute_behavioral_delta
from rl_assets.analysis.q1.report import behavioral_delta_report
from rl_assets.analysis.render.index_md import q1_findings
from rl_assets.analysis.render.report_md import Report, jsonable
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown


class BehavioralDelta(AnalysisResult):
    """`behavioral_delta`: per-side summaries, paired feature deltas with CIs and Holm-adjusted tests, task
    flips (McNemar), the pairing report, who labelled the failure modes and where both sides came from."""

    asset = "behavioral_delta"
    report_folder = "Q1_behavioral_delta"
    report_links = {"report": "report.md"}
    index_missing = tuple(q1_findings(None))

    def report(self) -> Report:
        return behavioral_delta_report(self.values)

    def metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n_before": self.values["before"]["n_rows"],
            "n_after": self.values["after"]["n_rows"],
            "common_tasks": self.values["common_tasks"],
            "pairing": Markdown("\n".join(pairing_section(self.values["pairing"], "#### Task pairing"))),
            "n_significant_features": sum(f["significant"] for f in self.values.get("features", [])),
        }
        if "task_flips" in self.values:
            out["mcnemar_p"] = float(self.values["task_flips"]["mcnemar_p"])
        return out

    def enough_data(self) -> tuple[bool, str]:
        """Whether there are enough common tasks for intervals and tests, and the detail the check shows."""
        r = self.values
        if r.get("invalid_for_comparison"):
            return False, str(r["invalid_for_comparison"])
        if r["common_tasks"] < stats.MIN_COMMON_TASKS:
            return False, f"{r['common_tasks']} common tasks (need >= {stats.MIN_COMMON_TASKS} for intervals)"
        missing = [f["feature"] for f in r["features"] if "delta" not in f]
        return True, f"{r['common_tasks']} common tasks" + (f"; no data for {', '.join(missing)}" if missing else "")

    def checks(self) -> list[CheckVerdict]:
        invalid = self.values.get("invalid_for_comparison")
        ok, why = self.enough_data()
        return [
            CheckVerdict(
                "has_common_tasks",
                passed=not invalid,
                metadata={"common_tasks": self.values["common_tasks"], "reason": invalid or "ok"},
            ),
            CheckVerdict("enough_data", passed=ok, warn=True, metadata={"detail": why}),
            *pairing_verdicts(self.values["pairing"]),
        ]

    def index_lines(self) -> list[str]:
        return q1_findings(self.values)


def analyse_behavioral_delta(
    before: Any,
    after: Any,
    *,
    n_boot: int,
    seed: int,
    normalise: Sequence[str],
    annotator: str | None,
    sources: Mapping[str, Any],
) -> BehavioralDelta:
    """The behavioural delta of two trace tables (failure modes already filled in); `annotator` names who
    labelled the failure modes (shown next to them), `sources` where each side came from. Raises ValueError
    for an unknown task-id normalisation rule."""
    result: dict[str, Any] = jsonable(
        compute_behavioral_delta(before, after, n_boot=n_boot, seed=seed, normalise=normalise)
    )
    result["failure_mode_annotator"] = annotator
    result["sources"] = dict(sources)
    return BehavioralDelta(result)
