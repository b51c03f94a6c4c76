"""The one path from an analysis result into Dagster (rl_assets/values/results.py).

`emit` writes the result's report folder, then yields its Output (the stored value, with metadata:
the report's summary, links to the written files, the result's own metadata, floats rounded) and
one AssetCheckResult per verdict. An analysis asset body is call + `yield from emit(...)`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import dagster as dg

from rl_assets.support.metadata_numbers import rounded_metadata
from rl_assets.support.report_files import write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown


def dagster_metadata(values: Mapping[str, Any]) -> dict[str, Any]:
    """Plain metadata values as Dagster takes them: Markdown rendered, everything else as it is."""
    return {k: dg.MetadataValue.md(v.text) if isinstance(v, Markdown) else v for k, v in values.items()}


def check_result(verdict: CheckVerdict, asset: str | None = None) -> dg.AssetCheckResult:
    """`verdict` as Dagster's check result; `asset` names the checked asset where Dagster cannot infer it."""
    return dg.AssetCheckResult(
        check_name=verdict.name,
        asset_key=asset,
        passed=verdict.passed,
        severity=dg.AssetCheckSeverity.WARN if verdict.warn else dg.AssetCheckSeverity.ERROR,
        metadata=dagster_metadata(verdict.metadata),
        description=verdict.description,
    )


def emit(
    partition: str, result: AnalysisResult, folder: str | None = None
) -> Iterator[dg.Output | dg.AssetCheckResult]:
    """Write `result`'s report into model `partition`'s report folder (`folder`, by default the one its type
    names: `report_folder`), then yield its events."""
    metadata: dict[str, Any] = {}
    report = result.report()
    folder = folder or result.report_folder or None
    if report is not None:
        if folder is None:
            raise TypeError(f"{type(result).__qualname__} renders a report but names no report_folder")
        written = write_report(partition, folder, report.files)
        if report.summary:  # a not-applicable result renders its reason in the report, not a summary
            metadata[result.summary_key] = dg.MetadataValue.md(report.summary)
        for key, name in result.report_links.items():
            metadata.update(file_metadata(key, written[name]))
    metadata.update(dagster_metadata(result.metadata()))
    yield dg.Output(result.stored(), metadata=rounded_metadata(metadata))
    for verdict in result.checks():
        yield check_result(verdict)
