"""Q2 RL rollouts over time: `rl_traces` (the RL rollout dataset, normalized) and `rl_temporal`
(UTC-binned mean reward and behaviour, joined to training steps, plus attribution) under
`<reports>/<slug>/Q2_rl_temporal/`."""

import dagster as dg

from resources.hub import HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets import store
from rl_assets.analysis.q2.result import RlTemporal, analyse_temporal
from rl_assets.partitions import models_partitions
from rl_assets.schema import LIGHT_COLUMNS
from rl_assets.support.checks import accounted_check, accounted_check_spec
from rl_assets.support.emit import emit
from rl_assets.support.handover_types import RL_TRACES, TRAINING_METRICS
from rl_assets.support.ingest_step import ingest_to_table
from rl_assets.support.not_applicable import not_applicable, not_applicable_metadata, not_applicable_output
from rl_assets.support.report_files import Q2_RL_TEMPORAL
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
    assert ref.data_version is not None  # ingest_to_table always names it (the table's content digest)
    yield dg.MaterializeResult(
        value=ref, data_version=dg.DataVersion(ref.data_version), metadata={"dataset": dataset, **metadata}
    )
    yield accounted_check("rl_traces", ref.accounting)


@dg.asset(
    name=RlTemporal.asset,
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
    if isinstance(rl_traces, NotApplicable):
        yield not_applicable_output(model, Q2_RL_TEMPORAL, rl_traces)
        return
    df = read_traces(rl_traces.path, columns=LIGHT_COLUMNS).to_pandas()
    # a value without a steps_table never loads as a StepTableRef
    steps = (
        store.read_table(training_metrics.steps_table).to_pandas()
        if isinstance(training_metrics, StepTableRef)
        else None
    )
    result = analyse_temporal(
        df, steps, source=rl_traces.source, bin_hours=settings.bin_hours, n_boot=settings.n_boot, seed=settings.seed
    )
    if result is None:
        na = not_applicable(rl_traces.repo_id or model, f"no dated rollouts in {rl_traces.source} ({len(df)} rows)")
        yield not_applicable_output(model, Q2_RL_TEMPORAL, na)
        return
    yield from emit(model, result, Q2_RL_TEMPORAL)
