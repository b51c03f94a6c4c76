"""`trace_pairs` (Q3): same-task baseline / post-RL trace pairs, side by side, in one HTML page.

Thin wrapper: loads the light columns of both tables, lets rl_assets.analysis.q3.pairs choose the pairs
and the shown attempts, loads only those conversations, and writes the page rl_assets/analysis/q3/report.py
renders to `<reports>/<slug>/Q3_trace_pairs/pairs.html` atomically.
"""

import json
from typing import Literal

import dagster as dg

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.pairing.frames import PAIRING_COLUMNS, paired_frames
from rl_assets.analysis.q3.pairs import CARD_FIELDS, shown_trace_ids
from rl_assets.analysis.q3.result import TracePairs, trace_pairs_result
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import emit
from rl_assets.support.trace_stream import iter_trace_rows
from rl_assets.values.handover import TraceTableRef

ASSET = TracePairs.asset
LIGHT = ("trace_id", "task_id", "attempt", "passed", "error_type", "is_infra_error", *CARD_FIELDS, *PAIRING_COLUMNS[1:])


class TracePairsConfig(dg.Config):
    """Which pairs the page shows (launchpad: ops.trace_pairs.config.mode)."""

    mode: Literal["flips", "reward_delta", "behavior_delta", "random"] = "flips"


def _conversations(path: str, wanted: set[str]) -> dict[str, list[dict]]:
    """The shown traces' conversations, read a batch at a time (never the whole column)."""
    out = {}
    for rows in iter_trace_rows(path, ("trace_id", "conversation"), only=wanted):
        for row in rows:
            tid, conv = row["trace_id"], row["conversation"]
            try:
                msgs = json.loads(conv) if conv else []
            except ValueError:  # a malformed conversation is shown as one note, not a failed page
                msgs = [{"role": "system", "content": f"[conversation is not valid JSON: {conv[:200]}]"}]
            out[tid] = msgs if isinstance(msgs, list) else []
    return out


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"html", "python"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    check_specs=[
        dg.AssetCheckSpec(
            "has_common_tasks",
            asset=ASSET,
            partitions_def=models_partitions,
            description='Baseline and post-RL traces share at least one task (docs/audit.md, "Task identity")',
        )
    ],
)
def trace_pairs(
    context: dg.AssetExecutionContext,
    config: TracePairsConfig,
    settings: AnalysisSettings,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
):
    """Q3 trace pairs page: selected same-task pairs side by side with their first action divergence."""
    from rl_assets.ingest import read_traces

    base_df = read_traces(baseline_traces.path, LIGHT).to_pandas()
    post_df = read_traces(post_rl_traces.path, LIGHT).to_pandas()
    try:  # task_id becomes the pairing key every analysis shares (docs/audit.md, "Task identity")
        _, shown = paired_frames(base_df, post_df, settings.task_id_normalisation)
    except ValueError as exc:  # an unknown normalisation rule in the settings, a row without a task id
        raise dg.Failure(description=f"{ASSET} {context.partition_key}: {exc}", allow_retries=False) from exc
    mode, top_n, seed = config.mode, settings.pair_top_n, settings.seed
    wanted = shown_trace_ids(base_df, post_df, mode=mode, top_n=top_n, seed=seed)
    convs = {**_conversations(baseline_traces.path, wanted), **_conversations(post_rl_traces.path, wanted)}
    result = trace_pairs_result(
        base_df,
        post_df,
        convs,
        shown=shown,
        labels=(str(baseline_traces.source), str(post_rl_traces.source)),
        revisions=(baseline_traces.revision, post_rl_traces.revision),
        model=context.partition_key,
        mode=mode,
        top_n=top_n,
        seed=seed,
    )
    yield from emit(context.partition_key, result)
