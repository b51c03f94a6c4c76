"""The judge's result: verdicts per probe, as `judge_verdicts` emits them and INDEX.md reads them back.

The stored value is the report without its pairs (every pair and verdict is in report.json) plus the
backend that answered; the run's own counters (calls made, spend) and the check's threshold travel
beside it, for the metadata and the check, and are not stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rl_assets.analysis.judge.llm_failures import calls_verdict
from rl_assets.analysis.judge.report import judge_report
from rl_assets.analysis.judge.run import build_report
from rl_assets.analysis.render.index_md import judge_findings
from rl_assets.analysis.render.report_md import Report
from rl_assets.values.results import AnalysisResult, CheckVerdict

PARSE_CHECK = "judge_parse_failure_rate"


@dataclass(frozen=True)
class JudgeRun:
    """What the run adds beside the verdicts: the LLM client's counters and the parse-failure threshold."""

    calls: int
    spend_usd: float
    max_parse_failure_rate: float


@dataclass(frozen=True)
class JudgeVerdicts(AnalysisResult):
    """`judge_verdicts`: per-probe win rates with Wilson CIs and order-flip rates, failures and their reasons."""

    asset = "judge_verdicts"
    report_folder = "Q1_llm_judge"
    report_links = {"report": "report.md"}
    index_missing = tuple(judge_findings(None))

    full: dict[str, Any] | None = None  # the whole report, pairs included (None when read back from the store)
    run: JudgeRun | None = None  # None when read back from the store

    @cached_property
    def _rendered(self) -> Report | None:
        return None if self.full is None else judge_report(self.full)

    def report(self) -> Report | None:
        return self._rendered

    def pairs_judged(self) -> int:
        return sum(int(s["judged"]) for s in self.values["probes"].values())

    def metadata(self) -> dict[str, Any]:
        run = self._run()
        return {
            "judge": self.values["judge"],
            "prompt_version": self.values["prompt_version"],
            "pairs_judged": self.pairs_judged(),
            "judgments_failed": self.values["judgments_failed"],
            "calls": run.calls,
            "spend_usd": run.spend_usd,
            **{f"{name}_order_flip_rate": s["order_flip_rate"] for name, s in self.values["probes"].items()},
        }

    def checks(self) -> list[CheckVerdict]:
        threshold = self._run().max_parse_failure_rate
        rate = self.values["parse_failure_rate"]  # None when nothing was judged: no evidence is not a pass
        parse = CheckVerdict(
            PARSE_CHECK,
            passed=rate is not None and rate <= threshold,
            warn=True,
            description="no judgments were made" if rate is None else None,
            metadata={
                "parse_failure_rate": rate,
                "threshold": threshold,
                "parse_failures": self.values["parse_failures"],
                "judgments": self.values["judgments_requested"],
                "judge": self.values["judge"],
            },
        )
        return [parse, calls_verdict(self.values["call_failures"])]

    def index_lines(self) -> list[str]:
        return judge_findings(self.values)

    def _run(self) -> JudgeRun:
        if self.run is None:
            raise ValueError("judge_verdicts read back from the store has no run counters (metadata, checks)")
        return self.run


def judge_result(
    pairs: list[dict[str, Any]],
    *,
    model_id: str,
    judge: str,
    attempt_rule: str,
    seed: int,
    common_tasks: int,
    calls: dict[str, Any],
    backend: dict[str, Any],
    run: JudgeRun,
) -> JudgeVerdicts:
    """The judged `pairs` as the asset's result: the report (rl_assets/analysis/judge/run.py), stored without its
    pairs and with `backend` (who answered) beside it."""
    full = build_report(
        pairs,
        model_id=model_id,
        judge=judge,
        attempt_rule=attempt_rule,
        seed=seed,
        common_tasks=common_tasks,
        calls=calls,
    )
    stored = {k: v for k, v in full.items() if k != "pairs"} | {"backend": backend}
    return JudgeVerdicts(stored, full=full, run=run)
