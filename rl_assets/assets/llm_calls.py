"""The `llm_calls_succeeded` asset check shared by the judge and the annotator: a run whose every
LLM call failed fails it (ERROR), with the failure reasons (status, message, masked) in metadata."""

import dagster as dg

from rl_assets.analysis.llm_failures import failure_lines
from rl_assets.partitions import models_partitions

CALLS_OK = "llm_calls_succeeded"


def calls_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(CALLS_OK, asset=asset, partitions_def=models_partitions, description=(
        "At least one LLM call of the run succeeded; fails (ERROR) when every call failed, listing the reasons "
        "(HTTP status and message, secrets masked); a partial failure passes with its counts by reason."))


def calls_check(asset: str, summary: dict) -> dg.AssetCheckResult:
    reasons = "\n".join(failure_lines(summary)) or "none"
    if summary["all_failed"]:
        description = f"all {summary['requested']} LLM calls failed"
    elif summary["failed"]:
        description = f"{summary['failed']} of {summary['requested']} LLM calls failed"
    else:
        description = f"{summary['requested']} LLM calls, none failed"
    return dg.AssetCheckResult(
        check_name=CALLS_OK, asset_key=asset, passed=not summary["all_failed"], severity=dg.AssetCheckSeverity.ERROR,
        description=description,
        metadata={"requested": summary["requested"], "failed": summary["failed"],
                  "failure_reasons": dg.MetadataValue.md(reasons)})
