"""`eval_temporal_overlay` (Q3): RL-time reward with the eval checkpoints placed at their times.

Reads the three trace tables and calls rl_assets/analysis/q3/result.py (numbers from q3/overlay.py, plot and
markers table from q3/report.py); emit writes
`<reports>/<slug>/Q3_temporal_overlay/overlay.{json,png}`, the folder once and whole (a failed plot leaves the
previous pair as it was; the run's failure says why).
The eval markers are built before the RL line so a model without an RL-trace dataset still gets them.
"""

import dagster as dg

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.q3.result import TemporalOverlay, overlay_result
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import emit
from rl_assets.support.handover_types import RL_TRACES
from rl_assets.values.handover import NotApplicable, TraceTableRef

ASSET = TemporalOverlay.asset
REWARD_COLUMNS = ("task_id", "reward", "error_type", "is_infra_error", "date")


def _frame(ref: TraceTableRef):
    from rl_assets.ingest import read_traces

    return read_traces(ref.path, REWARD_COLUMNS).to_pandas()


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"python", "matplotlib"},
    ins={
        "eval_pair": dg.AssetIn(),
        "baseline_traces": dg.AssetIn(),
        "post_rl_traces": dg.AssetIn(),
        "rl_traces": dg.AssetIn(key="rl_traces", dagster_type=RL_TRACES),
    },
)
def eval_temporal_overlay(
    context: dg.AssetExecutionContext,
    settings: AnalysisSettings,
    eval_pair: dict,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
    rl_traces: TraceTableRef | NotApplicable,
):
    """Q3 overlay: RL rollout reward per UTC bin (Q2's bins) with baseline/post-RL eval markers."""
    rl = rl_traces if isinstance(rl_traces, TraceTableRef) else None
    result = overlay_result(
        _frame(baseline_traces),
        _frame(post_rl_traces),
        _frame(rl) if rl is not None else None,
        rl_reason=rl_traces.reason if isinstance(rl_traces, NotApplicable) else None,
        rl_source=rl.source if rl is not None else None,
        sources=(baseline_traces.source, post_rl_traces.source),
        eval_pair=eval_pair,
        bin_hours=settings.bin_hours,
        model=context.partition_key,
    )
    yield from emit(context.partition_key, result)
