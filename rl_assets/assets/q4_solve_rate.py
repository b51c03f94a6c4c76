"""`solve_rate_by_context` (Q4): outcomes per disjoint context-length bin, baseline vs post-RL.

Writes what rl_assets/analysis/q4/report.py renders into
`<reports>/<slug>/Q4_solve_rate_by_context/solve_rate.{png,json,md}` and says whether RL
moved traces into bins with different solve rates (mix shift) or changed rates inside bins.
"""

import math

import dagster as dg
from dagster import AssetExecutionContext

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.q4.context_bins import COLUMNS, solve_rate_by_context
from rl_assets.analysis.q4.report import solve_rate_report
from rl_assets.analysis.render.report_md import jsonable
from rl_assets.partitions import models_partitions
from rl_assets.support.metadata_numbers import rounded_metadata
from rl_assets.support.report_files import Q4_SOLVE_RATE, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import TraceTableRef

ASSET = "solve_rate_by_context"


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"python", "matplotlib"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    check_specs=[
        dg.AssetCheckSpec(
            "enough_data",
            asset=ASSET,
            partitions_def=models_partitions,
            description="Both sides have rows with a known context length.",
        )
    ],
)
def solve_rate_by_context_asset(
    context: AssetExecutionContext,
    settings: AnalysisSettings,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
):
    """Outcome rates per disjoint context bin with Wilson CIs; Δ solve rate split into mix shift and within-bin."""
    from rl_assets.ingest import read_traces

    before = read_traces(baseline_traces.path, columns=COLUMNS)
    after = read_traces(post_rl_traces.path, columns=COLUMNS)
    result = jsonable(solve_rate_by_context(before, after, edges=list(settings.context_bins) + [math.inf]))
    report = solve_rate_report(result)
    png = write_report(context.partition_key, Q4_SOLVE_RATE, report.files)["solve_rate.png"]
    yield dg.Output(
        result,
        metadata=rounded_metadata(
            {
                "interpretation": dg.MetadataValue.md(report.summary),
                **file_metadata("plot_file", png),
                "n_before": result["before"]["n"],
                "n_after": result["after"]["n"],
                "mix_shift_pp": dg.MetadataValue.float(100 * result["decomposition"]["mix_shift"]),
                "within_bin_pp": dg.MetadataValue.float(100 * result["decomposition"]["within_bin"]),
            }
        ),
    )
    known = [result[side]["n"] - result[side]["unknown"] for side in ("before", "after")]
    yield dg.AssetCheckResult(
        check_name="enough_data",
        passed=all(k > 0 for k in known),
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"rows_with_length_before": known[0], "rows_with_length_after": known[1]},
    )
