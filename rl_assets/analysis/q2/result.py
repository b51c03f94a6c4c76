"""Q2's results: what `training_metrics` and `rl_temporal` store, show and check (docs/q2.md).

`training_metrics` hands on a StepTableRef (the per-step table in the store), so its result is not an
AnalysisResult: `TrainingMetrics` holds report.json's content and the rendered report, and says the
materialization's metadata and the verdicts of its two checks — the training-log ledger
(`every_input_accounted_for`) and the cross-check against an independent record
(`log_matches_wandb_summary`). Pure: rl_assets/support/emit.py turns the verdicts into Dagster's.
`RlTemporal` is the RL rollouts binned over time (`analyse_temporal`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.q2.attribution import attribute
from rl_assets.analysis.q2.report import temporal_report, training_report
from rl_assets.analysis.q2.temporal import bin_rollouts, steps_per_bin
from rl_assets.analysis.q2.training_metrics import build_report
from rl_assets.analysis.render.figures import markdown_image, markdown_images
from rl_assets.analysis.render.report_md import Report
from rl_assets.analysis.stats.correlation import spearman
from rl_assets.schema import FEATURE_COLUMNS
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown

if TYPE_CHECKING:
    import pandas as pd

ACCOUNTED, WANDB_CHECK = "every_input_accounted_for", "log_matches_wandb_summary"
# The status the cross-check (rl_assets/ingest/training_logs/crosscheck.py UNREADABLE) gives a record that is
# there but cut short; analysis/ does not import ingest/, so tests/analysis/test_q2_training_report.py
# holds the two equal.
UNREADABLE = "unreadable_record"
REWARD_PLOT = "reward_ema.png"


@dataclass(frozen=True)
class TrainingMetrics:
    """`rep`: report.json's content (build_report, plus the logs' revision, ledger and cross-checks);
    `rendered`: the report folder's files, UI summary and plots."""

    rep: dict[str, Any]
    rendered: Report

    def accounting(self) -> dict[str, Any]:
        """The readers' ledger: lines read / parsed / malformed / ignored, files found / read / failed."""
        acc: dict[str, Any] = self.rep["accounting"]
        return acc

    def metadata(self) -> dict[str, Any]:
        """The materialization's metadata beside the report link (the asset writes the folder)."""
        acc, rep, plots = self.accounting(), self.rep, self.rendered.plots
        others = {n.removesuffix(".png"): p for n, p in plots.items() if n != REWARD_PLOT}
        return {
            "summary": Markdown(self.rendered.summary),
            "lines_read": acc["lines"]["read"],
            "lines_ignored": sum(acc["lines"]["ignored"].values()),
            "files_found": acc["files"]["found"],
            "files_not_read": acc["files"]["not_read"],
            "files_not_fully_read": acc["files"].get("n_failures", 0),
            "non_finite_values": acc.get("non_finite", {}),
            "n_steps": rep["n_steps"],
            "trainer": rep["trainer"],
            "malformed_lines": rep["malformed"]["count"],
            "duplicate_steps": rep["duplicates"]["count"],
            "best_step": rep["best_checkpoint"].get("best_step") or -1,
            "flagged_steps": len(rep["instability"]["flagged_steps"]),
            "reward_plot": Markdown(markdown_image("reward", plots[REWARD_PLOT]))
            if REWARD_PLOT in plots
            else "no reward",
            "plots": Markdown(markdown_images(others)) if len(plots) > 1 else "no other plots",
        }

    def checks(self) -> list[CheckVerdict]:
        return [accounting_verdict(self.accounting()), wandb_verdict(self.rep["cross_checks"])]


def analyse_training_logs(parsed: Any, save_every: int | None, training_logs_revision: str | None) -> TrainingMetrics:
    """The report of `parsed` (an ingest ParsedLogs: steps, trainer, accounting, cross-checks, vLLM
    metrics; typed Any because analysis/ does not import ingest/)."""
    rep = build_report(parsed, save_every)
    rep["training_logs_revision"] = training_logs_revision
    rep["accounting"], rep["cross_checks"] = parsed.accounting, parsed.cross_checks
    steps: pd.DataFrame = parsed.steps
    return TrainingMetrics(rep, training_report(rep, steps, parsed.vllm))


def no_logs_verdicts() -> list[CheckVerdict]:
    """Both checks when the model published no training logs: passed, saying nothing was read."""
    return [accounting_verdict(None), wandb_verdict(None)]


def unrecognised_verdict(message: str) -> CheckVerdict:
    """Logs are there but no reader can read them: an error, never "not applicable" (that is for no logs)."""
    return CheckVerdict(ACCOUNTED, passed=False, description=message[:2000], metadata={"recognised": False})


def accounting_verdict(acc: dict[str, Any] | None) -> CheckVerdict:
    """The training-log ledger: red when any file was read only in part (a corrupt record, a cut
    stream, a cap), was unreadable, or holds another trainer's logs this folder's reader skipped --
    each named with its file and where it stopped. The line sums themselves are enforced by the
    readers (LogAccountingError), so a balanced ledger with no failure is the only green."""
    if not acc:
        return CheckVerdict(
            ACCOUNTED, passed=True, metadata={"applicable": False}, description="no training logs were read"
        )
    lines, files = acc["lines"], acc["files"]
    failures = files.get("failures", [])
    dups, non_finite = lines.get("duplicate", {}), acc.get("non_finite", {})
    ledger = (
        f"{lines['read']} lines = {sum(lines['parsed'].values())} parsed + {sum(lines['malformed'].values())} "
        f"malformed + {sum(lines['ignored'].values())} ignored + {sum(dups.values())} merged duplicates; "
        f"{files['found']} files = {files['read']} read + {files['not_read']} not read"
    )
    if non_finite:
        ledger += f"; non-finite values in {len(non_finite)} metrics ({', '.join(list(non_finite)[:5])})"
    if failures:
        named = "; ".join(f"{f['file']}: {f['reason']}" for f in failures[:5])
        more = f"; … and {files.get('n_failures', len(failures)) - 5} more" if len(failures) > 5 else ""
        description = (
            f"{files.get('n_failures', len(failures))} file(s) not fully accounted for: {named}{more}. {ledger}"
        )
    else:
        description = ledger
    return CheckVerdict(
        ACCOUNTED,
        passed=not failures,
        description=description[:2000],
        metadata={
            "lines_read": lines["read"],
            "parsed": lines["parsed"],
            "malformed": lines["malformed"],
            "ignored": lines["ignored"],
            "merged_duplicates": dups,
            "non_finite": non_finite,
            "files_found": files["found"],
            "files_read": files["read"],
            "files_not_read": files["not_read_files"],
            "failures": failures,
        },
    )


def wandb_verdict(cross_checks: list[dict[str, Any]] | None) -> CheckVerdict:
    """The final step against wandb-summary.json (or trainer_log.jsonl): red when a shared key differs or
    the record is there but unreadable; passes, saying so, when there is nothing to compare with."""
    checks = cross_checks or []
    unreadable = [c for c in checks if c["status"] == UNREADABLE]
    if unreadable:  # a record is there but cut short: the cross-check failed, it is not "off"
        return CheckVerdict(
            WANDB_CHECK,
            passed=False,
            metadata={"independent_record": True, "unreadable": unreadable},
            description="independent record present but unreadable, nothing could be checked: "
            + "; ".join(f"{c['source']}: {c['reason']}" for c in unreadable),
        )
    real = [c for c in checks if c["status"] != "no_independent_record"]
    if not real:
        why = "; ".join(c.get("reason", "") for c in checks) or "no training logs were read"
        return CheckVerdict(
            WANDB_CHECK,
            passed=True,
            metadata={"independent_record": False},
            description=f"no independent record to compare with ({why}); nothing was checked",
        )
    differ = [
        f"{c['source']} step {c['step']}: {d['key']} (table {d['table']}, record {d['record']}"
        + (f"; {d['hint']}" if d["hint"] else "")
        + ")"
        for c in real
        for d in c["differ"]
    ]
    compared = sum(len(c["compared"]) for c in real)
    if not compared:
        return CheckVerdict(
            WANDB_CHECK,
            passed=True,
            metadata={"independent_record": True},
            description=f"{real[0]['source']} shares no key with step {real[0]['step']} "
            "of the table; nothing could be compared",
        )
    return CheckVerdict(
        WANDB_CHECK,
        passed=not differ,
        description=(f"{len(differ)} of {compared} shared keys differ: " + "; ".join(differ[:8]))
        if differ
        else f"all {compared} shared keys of the final step match ({', '.join(c['source'] for c in real)})",
        metadata={
            "independent_record": True,
            "compared": compared,
            "differing_keys": len(differ),
            "details": real,
        },
    )


@dataclass(frozen=True)
class RlTemporal(AnalysisResult):
    """`rl_temporal`: `values` is the stored value (bins, their edges, the attribution's top features and
    status); `rendered` the report, only on a freshly analysed result."""

    asset = "rl_temporal"
    report_links = {"report": "report.md"}

    rendered: Report | None = field(default=None, compare=False)

    def top_features(self) -> list[str]:
        """The behaviour features the attribution ranks first (empty when it did not run)."""
        top: list[str] = self.values["top_features"]
        return top

    def report(self) -> Report | None:
        return self.rendered

    def metadata(self) -> dict[str, Any]:
        plot = self.rendered.plots["temporal.png"] if self.rendered is not None else None
        return {
            "n_bins": self.values["n_bins"],
            "plot": Markdown(markdown_image("RL rollouts over time", plot)) if plot is not None else "no plot",
            "top_features": ", ".join(self.top_features()) or "none",
        }


def analyse_temporal(
    rollouts: pd.DataFrame,
    steps: pd.DataFrame | None,
    *,
    source: str,
    bin_hours: float,
    n_boot: int,
    seed: int,
) -> RlTemporal | None:
    """Rollouts binned in UTC (mean reward with its 95% CI, share with reward > 0, errors, behaviour),
    joined to the training steps of each bin when there are `steps`, and the attribution; None when no
    rollout is dated (nothing to bin)."""
    bins, info, dated, edges = bin_rollouts(rollouts, bin_hours)
    if edges is None:
        return None
    if steps is not None:
        bins = bins.merge(steps_per_bin(steps, edges), on="bin", how="left")
    att = attribute(bins, FEATURE_COLUMNS, rollouts=dated, n_boot=n_boot, seed=seed)
    rep = {
        **info,
        "source": source,
        "training_metrics_applicable": steps is not None,
        "attribution": att,
        "bins": bins.to_dict("records"),
        "log_vs_rollout_rho": spearman(bins["mean_reward"], bins["log_reward"]) if "log_reward" in bins else None,
    }
    stored = {
        "applicable": True,
        "n_bins": int(len(bins)),
        "edges": info["edges"],
        "top_features": att.get("top_features", []),
        "attribution_status": att.get("status"),
    }
    return RlTemporal(stored, rendered=temporal_report(rep, bins))
