"""`eval_temporal_overlay` (Q3): RL-time reward with the eval checkpoints placed at their times.

Thin wrapper over rl_assets.analysis.q3.overlay (numbers) and q3/report.py (plot, markers table); writes
`<reports>/<slug>/Q3_temporal_overlay/overlay.{json,png}`, the folder once and whole (a failed plot leaves the
previous pair as it was; the run's failure says why).
The eval markers are built before the RL line so a model without an RL-trace dataset still gets them.
"""

import dagster as dg

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.q3.overlay import REWARD_DEFINITION, build_overlay, eval_marker
from rl_assets.analysis.q3.report import overlay_report
from rl_assets.analysis.render.figures import markdown_image
from rl_assets.partitions import models_partitions
from rl_assets.support.handover_types import RL_TRACES
from rl_assets.support.report_files import Q3_TEMPORAL_OVERLAY, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import NotApplicable, TraceTableRef

REWARD_COLUMNS = ("task_id", "reward", "error_type", "is_infra_error", "date")


def _frame(ref: TraceTableRef):
    from rl_assets.ingest import read_traces

    return read_traces(ref.path, REWARD_COLUMNS).to_pandas()


@dg.asset(
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
    markers = [
        eval_marker(
            _frame(baseline_traces),
            label="baseline",
            kind="baseline",
            source=baseline_traces.source,
            timestamp=eval_pair.get("baseline_eval_ts"),
        ),
        eval_marker(
            _frame(post_rl_traces),
            label="post-RL",
            kind="post_rl",
            source=post_rl_traces.source,
            timestamp=eval_pair.get("post_rl_eval_ts"),
        ),
    ]
    applicable = rl_traces.applicable
    reason = None if applicable else rl_traces.reason
    result = build_overlay(_frame(rl_traces) if applicable else None, reason, markers, settings.bin_hours)
    rl_source = rl_traces.source if applicable else None
    result.update(model=context.partition_key, rl_source=rl_source, benchmark=eval_pair.get("benchmark"))

    report = overlay_report(result)
    written = write_report(context.partition_key, Q3_TEMPORAL_OVERLAY, report.files)
    return dg.Output(
        {"rl_applicable": applicable, "rl_reason": reason, "notes": result["notes"]},
        metadata={
            "overlay": dg.MetadataValue.md(markdown_image("temporal overlay", report.plots["overlay.png"])),
            **file_metadata("overlay_file", written["overlay.png"]),
            "rl_applicable": applicable,
            "rl_bins": len((result["rl"] or {}).get("points", [])),
            "reward_definition": REWARD_DEFINITION,
            "markers": dg.MetadataValue.md(report.summary),
            "notes": "; ".join(result["notes"]) or "none",
        },
    )
