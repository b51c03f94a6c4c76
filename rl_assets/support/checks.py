"""Asset checks that several assets declare: built here, below the asset layer, so no asset module
imports another (docs/contracts.md, "Layers").

- ``llm_calls_succeeded`` (the judge and the annotator): a run whose every LLM call failed fails it
  (ERROR), with the failure reasons (status, message, masked) in metadata.
- ``every_input_accounted_for`` (every trace-table asset): the ingest's ledger; fails when anything
  found was lost (docs/ingest.md).
- ``matches_toolkit_metrics`` (the eval pair's trace tables): the eval toolkit's own summary (Qwen2.5-Math
  ``_metrics.json``, lm-evaluation-harness ``results_<time>.json``) against what rldelta read; fails
  when an accuracy or a count differs.

And the rule for a check whose condition is absent by design (a model published without training
logs or an RL rollout dataset): it passes, saying "not applicable" and why (`not_applicable`), because
a failed check shows red in the UI and red must mean something is wrong.
"""

import dagster as dg

from rl_assets.analysis.judge.llm_failures import CALLS_OK, calls_verdict
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import check_result
from rl_assets.values.results import not_applicable_verdict

ACCOUNTED = "every_input_accounted_for"
TOOLKIT = "matches_toolkit_metrics"


def not_applicable(check_name: str, reason: str, asset: str | None = None, **metadata) -> dg.AssetCheckResult:
    """A check that does not apply to this partition, by design (values/results.not_applicable_verdict)."""
    return check_result(not_applicable_verdict(check_name, reason, **metadata), asset)


def calls_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        CALLS_OK,
        asset=asset,
        partitions_def=models_partitions,
        description=(
            "At least one LLM call of the run succeeded; fails (ERROR) when every call failed, listing the reasons "
            "(HTTP status and message, secrets masked); a partial failure passes with its counts by reason."
        ),
    )


def calls_check(asset: str, summary: dict) -> dg.AssetCheckResult:
    """The verdict over one run's LLM calls (rl_assets/analysis/judge/llm_failures.py) as the check's result."""
    return check_result(calls_verdict(summary), asset)


def accounted_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        ACCOUNTED,
        asset=asset,
        partitions_def=models_partitions,
        description=(
            "Every file, trial folder and row the ingest found is written, skipped for a stated reason, or merged "
            "as a duplicate; fails when anything was lost (a skip or an unread file that is not by design)."
        ),
    )


def accounted_check(asset: str, acc: dict) -> dg.AssetCheckResult:
    """The ledger of one ingest as the check's result: passed when nothing found was lost."""
    if not acc:  # nothing was read (a source that does not apply)
        return not_applicable(ACCOUNTED, "nothing to read: this source does not apply", asset)
    from rl_assets.ingest.report import accounting_markdown

    lost = acc["lost"]
    return dg.AssetCheckResult(
        check_name=ACCOUNTED,
        asset_key=asset,
        passed=lost == 0,
        severity=dg.AssetCheckSeverity.ERROR,
        description=f"{lost} of {acc['found']} {acc['units']} / {acc['inputs_found']} inputs lost"
        if lost
        else f"all {acc['found']} {acc['units']} found are written, skipped by design or merged",
        metadata={
            "units": acc["units"],
            "found": acc["found"],
            "written": acc["written"],
            "skipped": sum(acc["skipped"].values()),
            "merged": sum(acc["merged"].values()),
            "lost": lost,
            "inputs_found": acc["inputs_found"],
            "inputs_read": acc["inputs_read"],
            "inputs_not_read": sum(acc["not_read"].values()),
            "ledger": dg.MetadataValue.md(accounting_markdown(acc)),
        },
    )


def toolkit_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        TOOLKIT,
        asset=asset,
        partitions_def=models_partitions,
        description=(
            "The eval toolkit's own summary beside its samples (Qwen2.5-Math _metrics.json acc, lm-evaluation-harness "
            "and lighteval results json) equals rldelta's accuracy and counts from the rows it read; "
            "fails (ERROR) on a difference."
        ),
    )


def toolkit_check(asset: str, acc: dict) -> dg.AssetCheckResult:
    """The toolkit-vs-rldelta rows of one ingest (accounting["toolkit"]) as the check's result."""
    from rl_assets.values.escape import md_table, md_text

    rows = (acc or {}).get("toolkit") or []
    if not rows:
        return not_applicable(TOOLKIT, "no eval-toolkit summary beside the samples", asset)
    bad = [r for r in rows if not r["agrees"]]
    table = md_table(
        ["task family", "metric", "toolkit", "rldelta", "agrees", "note"],
        [
            [md_text(r["family"]), md_text(r["metric"]), r["toolkit"], r["rldelta"], "yes" if r["agrees"] else "**no**"]
            + [md_text(r["note"])]
            for r in rows
        ],
        align="--rr--",
    )
    compared = sum(r["compared"] for r in rows)
    return dg.AssetCheckResult(
        check_name=TOOLKIT,
        asset_key=asset,
        passed=not bad,
        severity=dg.AssetCheckSeverity.ERROR,
        description=(
            f"{len(bad)} of {compared} compared values differ from the toolkit's own summary"
            if bad
            else f"all {compared} compared values equal the toolkit's own summary"
        ),
        metadata={"compared": compared, "differ": len(bad), "comparison": dg.MetadataValue.md(table)},
    )
