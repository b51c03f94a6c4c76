"""Q2 RL rollouts over time: `rl_traces` (the RL rollout dataset, normalized) and `rl_temporal`
(UTC-binned mean reward and behaviour, joined to training steps, plus attribution) under
`<reports>/<slug>/Q2_rl_temporal/`."""

import dagster as dg

from resources.hub import HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets import store
from rl_assets.analysis.q2.attribution import attribute
from rl_assets.analysis.q2.report import temporal_report
from rl_assets.analysis.q2.temporal import bin_rollouts, steps_per_bin
from rl_assets.analysis.render.figures import markdown_image
from rl_assets.analysis.stats import spearman
from rl_assets.partitions import models_partitions
from rl_assets.schema import FEATURE_COLUMNS, LIGHT_COLUMNS
from rl_assets.support.checks import accounted_check, accounted_check_spec
from rl_assets.support.handover_types import RL_TRACES, TRAINING_METRICS
from rl_assets.support.ingest_step import ingest_to_table
from rl_assets.support.not_applicable import not_applicable, not_applicable_metadata, not_applicable_output
from rl_assets.support.report_files import Q2_RL_TEMPORAL, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import NotApplicable, StepTableRef, TraceTableRef


@dg.asset(
    partitions_def=models_partitions,
    kinds={"parquet", "huggingface"},
    ins={"checkpoint": dg.AssetIn()},
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
    pool="hub",
    check_specs=[accounted_check_spec("rl_traces")],
)
def rl_traces(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings, checkpoint: dict):
    """The RL rollout-trace dataset (<org>/<job_name>) as a normalized trace table, or not applicable."""
    repo_id, dataset = checkpoint["repo_id"], checkpoint.get("rl_traces_dataset")
    if not dataset or not checkpoint.get("rl_traces_exists"):
        tried = checkpoint.get("rl_traces_candidates") or "no job_name"
        out = not_applicable(repo_id, f"not applicable: no RL rollout dataset for {repo_id} (tried {tried})")
        yield dg.MaterializeResult(
            value=out,
            data_version=dg.DataVersion(f"none:{checkpoint['revision']}"),
            metadata=not_applicable_metadata(out.reason),
        )
        yield accounted_check("rl_traces", {})
        return
    ref, metadata = ingest_to_table(context, hub, settings, dataset, "rl_traces", "rl", repo_id=repo_id)
    yield dg.MaterializeResult(
        value=ref, data_version=dg.DataVersion(ref.data_version), metadata={"dataset": dataset, **metadata}
    )
    yield accounted_check("rl_traces", ref.accounting)


@dg.asset(
    partitions_def=models_partitions,
    kinds={"python", "pandas"},
    ins={
        "rl_traces": dg.AssetIn(dagster_type=RL_TRACES),
        "training_metrics": dg.AssetIn(dagster_type=TRAINING_METRICS),
    },
)
def rl_temporal(
    context: dg.AssetExecutionContext,
    settings: AnalysisSettings,
    rl_traces: TraceTableRef | NotApplicable,
    training_metrics: StepTableRef | NotApplicable,
):
    """RL rollouts binned in UTC: mean reward (95% CI), share with reward > 0, errors, behaviour, training steps,
    attribution."""
    from rl_assets.ingest import read_traces

    model = context.partition_key
    if not rl_traces.applicable:
        return not_applicable_output(model, Q2_RL_TEMPORAL, rl_traces)
    df = read_traces(rl_traces.path, columns=LIGHT_COLUMNS).to_pandas()
    bins, info, rollouts, edges = bin_rollouts(df, settings.bin_hours)
    if edges is None:
        na = not_applicable(rl_traces.repo_id or model, f"no dated rollouts in {rl_traces.source} ({len(df)} rows)")
        return not_applicable_output(model, Q2_RL_TEMPORAL, na)
    if training_metrics.applicable:  # a value without a steps_table never loads as a StepTableRef
        steps = store.read_table(training_metrics.steps_table).to_pandas()
        bins = bins.merge(steps_per_bin(steps, edges), on="bin", how="left")
    att = attribute(bins, FEATURE_COLUMNS, rollouts=rollouts, n_boot=settings.n_boot, seed=settings.seed)
    rep = {
        **info,
        "source": rl_traces.source,
        "training_metrics_applicable": training_metrics.applicable,
        "attribution": att,
        "bins": bins.to_dict("records"),
        "log_vs_rollout_rho": spearman(bins["mean_reward"], bins["log_reward"]) if "log_reward" in bins else None,
    }
    report = temporal_report(rep, bins)
    written = write_report(model, Q2_RL_TEMPORAL, report.files)
    value = {
        "applicable": True,
        "n_bins": int(len(bins)),
        "edges": info["edges"],
        "top_features": att.get("top_features", []),
        "attribution_status": att.get("status"),
    }
    return dg.Output(
        value,
        metadata={
            "summary": dg.MetadataValue.md(report.summary),
            "n_bins": len(bins),
            "plot": dg.MetadataValue.md(markdown_image("RL rollouts over time", report.plots["temporal.png"])),
            "top_features": ", ".join(att.get("top_features", [])) or "none",
            **file_metadata("report", written["report.md"]),
        },
    )
