"""`baseline_traces`, `post_rl_traces`: the eval pair's datasets as normalized trace tables.

Each source is ingested once per partition, in record batches, to a parquet table in the store
(rl_assets/store.py, under RLDELTA_STORAGE); every analysis reads that table (the value passed
between assets is a TraceTableRef naming its location). The
asset check `every_input_accounted_for` shows the ingest's ledger (found = written + skipped +
merged, for inputs and for rows) and fails when anything found was lost (docs/ingest.md); the check
`matches_toolkit_metrics` compares an eval toolkit's own summary with what was read (docs/formats.md).
"""

import dagster as dg

from resources.hub import HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets.partitions import models_partitions
from rl_assets.support.checks import accounted_check, accounted_check_spec, toolkit_check, toolkit_check_spec
from rl_assets.support.ingest_step import ingest_to_table


def _trace_asset(name: str, side: str, dataset_key: str, description: str):
    @dg.asset(
        name=name,
        description=description,
        partitions_def=models_partitions,
        kinds={"parquet", "huggingface"},
        ins={"eval_pair": dg.AssetIn()},
        retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
        pool="hub",
        check_specs=[accounted_check_spec(name), toolkit_check_spec(name)],
    )
    def _asset(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings, eval_pair: dict):
        spec = eval_pair.get(dataset_key)
        if not spec:
            raise dg.Failure(
                description=f"{name} {context.partition_key}: the eval pair has no {side} dataset "
                f"({eval_pair.get('reason')}); see the eval_pair asset's pair table"
            )
        ref, metadata = ingest_to_table(context, hub, settings, spec, name, side, eval_pair.get("benchmark"))
        if ref.data_version is None:  # ingest_to_table always sets it (the source digest)
            raise dg.Failure(
                description=f"{name} {context.partition_key}: the ingest of {spec} returned no data version"
            )
        yield dg.MaterializeResult(
            value=ref,
            data_version=dg.DataVersion(ref.data_version),
            metadata={"table": dg.MetadataValue.path(ref.path), **metadata},
        )
        yield accounted_check(name, ref.accounting)
        yield toolkit_check(name, ref.accounting)

    return _asset


baseline_traces = _trace_asset(
    "baseline_traces",
    "baseline",
    "baseline_eval",
    "The pre-RL (base model) eval traces, normalized: one row per trial.",
)
post_rl_traces = _trace_asset(
    "post_rl_traces", "post-rl", "post_rl_eval", "The post-RL checkpoint's eval traces, normalized: one row per trial."
)
