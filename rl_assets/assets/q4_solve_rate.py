"""`solve_rate_by_context` (Q4): outcomes per disjoint context-length bin, baseline vs post-RL.

Writes what rl_assets/analysis/q4/report.py renders into
`<reports>/<slug>/Q4_solve_rate_by_context/solve_rate.{png,json,md}` and says whether RL
moved traces into bins with different solve rates (mix shift) or changed rates inside bins.
"""

import dagster as dg
from dagster import AssetExecutionContext

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.q4.context_bins import COLUMNS
from rl_assets.analysis.q4.result import SolveRateByContext, analyse_solve_rate
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import emit
from rl_assets.values.handover import TraceTableRef

ASSET = SolveRateByContext.asset


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
    yield from emit(context.partition_key, analyse_solve_rate(before, after, list(settings.context_bins)))
