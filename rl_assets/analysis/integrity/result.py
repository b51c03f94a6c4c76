"""Reward integrity's result: the run's verdict as the asset stores, shows and checks it (docs/integrity.md).

`analyse_integrity` judges one run's per-step table (rl_assets.analysis.integrity.reward_integrity) and
renders the report; `integrity_not_applicable` is the result for a model without training steps.
The check of the same name is red (ERROR) for "reward earned outside the task" and "collapsed";
"not enough data" passes and says so, because a run that cannot be judged has not failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.integrity import onsets, reward_integrity, rules
from rl_assets.analysis.integrity.report import PLOT, integrity_report, not_applicable_files
from rl_assets.analysis.render.figures import markdown_image
from rl_assets.analysis.render.index_md import integrity_headline
from rl_assets.analysis.render.report_md import Report
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

CHECK = "reward_integrity"


@dataclass(frozen=True)
class RewardIntegrity(AnalysisResult):
    """`reward_integrity`: `values` is the stored value (verdict, reason, onsets, signal statuses — what
    INDEX.md and the run lineage read — or `applicable: False` with the reason); `analysis` is the full
    judgement (signals with evidence, non-finite counts) and `rendered` its report, both only on a freshly
    analysed result."""

    asset = "reward_integrity"
    headline_missing = tuple(integrity_headline(None))
    report_folder = "Q2_reward_integrity"
    report_links = {"report": "reward_integrity.md"}
    summary_key = "signals"

    analysis: dict[str, Any] = field(default_factory=dict, compare=False)
    rendered: Report | None = field(default=None, compare=False)

    @property
    def applicable(self) -> bool:
        return bool(self.values.get("applicable"))

    def verdict(self) -> str | None:
        """The run's verdict (rules.py), None when there were no training steps to judge."""
        verdict: str | None = self.values.get("verdict") if self.applicable else None
        return verdict

    def reason(self) -> str | None:
        """Why the verdict (or why there is none)."""
        reason: str | None = self.values.get("verdict_reason" if self.applicable else "reason")
        return reason

    def onsets(self) -> dict[str, int]:
        """{signal: onset step} of the signals that hold; empty when not applicable."""
        found: dict[str, int] = self.values.get("onsets") or {}
        return found

    def report(self) -> Report | None:
        return self.rendered

    def metadata(self) -> dict[str, Any]:
        if not self.applicable:  # INDEX.md shows the reason (report_index reads `applicable` and `reason`)
            return {"applicable": False, "reason": self.values["reason"]}
        plots = self.rendered.plots if self.rendered is not None else {}
        return {
            "verdict": self.verdict(),
            "trainer": str(self.values["trainer"] or "unknown"),
            "onsets": self.onsets(),
            # {metric: {kind: count}} of ±inf / NaN strings / non-numbers, dropped as not logged
            "non_finite": self.analysis["non_finite"],
            "curves": Markdown(markdown_image("curves", plots[PLOT])) if PLOT in plots else "no curves logged",
        }

    def checks(self) -> list[CheckVerdict]:
        """Red only for a verdict that says something is wrong; every pass names what it rests on."""
        verdict = self.verdict()
        bad = verdict in (rules.OUTSIDE, rules.COLLAPSED)
        words = {
            None: "passed: not applicable",
            rules.NOT_ENOUGH: "passed with reason: not enough data",
            rules.HEALTHY: "healthy",
        }
        return [
            CheckVerdict(
                CHECK,
                passed=not bad,
                description=f"{verdict if bad else words[verdict]} — {self.reason()}",
                metadata={"verdict": verdict or "not applicable"},
            )
        ]

    def index_headline(self) -> list[str]:
        return integrity_headline(self.values)


def analyse_integrity(
    steps: pd.DataFrame, generations: pd.DataFrame | None, trainer: str | None, title: str
) -> RewardIntegrity:
    """Judge one run's per-step table (and its validation generations, None when the logs hold none)."""
    result = reward_integrity(steps, generations, "not read: training_metrics stored no validation-generation table")
    stored = {
        "applicable": True,
        "trainer": trainer,
        "verdict": result["verdict"],
        "verdict_reason": result["verdict_reason"],
        "onsets": onsets(result),
        "statuses": {n: s["status"] for n, s in result["signals"].items()},
    }
    return RewardIntegrity(stored, analysis=result, rendered=integrity_report(result, steps, title))


def integrity_not_applicable(reason: str, title: str) -> RewardIntegrity:
    """The result for a model without training steps: the reason, and a report that says so."""
    files: dict[str, str | bytes] = dict(not_applicable_files(reason, title))
    # no summary: the UI shows the reason itself (metadata `reason`)
    return RewardIntegrity({"applicable": False, "reason": reason}, rendered=Report(files=files, summary="", plots={}))
