"""`baseline_traces`, `post_rl_traces`: the eval pair's datasets as normalized trace tables.

Each source is ingested once per partition, in record batches, to a local parquet file; every
analysis reads that file (the value passed between assets is a small reference dict).
"""

from pathlib import Path

import dagster as dg

from resources.hub import HubError, HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets.partitions import models_partitions, slug
from rl_assets.settings import tables_dir
from rl_assets.trace_tables import ingest_once


def ingest_to_table(context, hub: HubResource, settings: AnalysisSettings, spec: str, asset_name: str, side: str, benchmark=None):
    """Ingest one source for this partition (or reuse its unchanged table); returns (reference dict, Dagster metadata)."""
    out_path = tables_dir() / asset_name / f"{slug(context.partition_key)}.parquet"
    try:
        built = ingest_once(hub.client(), spec, out_path, max_rows=settings.max_rows, tokenizer=settings.tokenizer,
                            benchmark=benchmark, side=side)
    except (HubError, FileNotFoundError) as exc:
        raise dg.Failure(description=f"{asset_name} {context.partition_key}: cannot read {spec}: {exc}") from exc
    ref = {
        "path": built["path"],
        "rows": built["rows"],
        "rows_read": built["rows_read"],
        "skipped": built["skipped"],
        "source": spec,
        "source_kind": built["source_kind"],
        "revision": built["revision"],
        "benchmark": benchmark,
        "side": side,
        "max_rows": settings.max_rows,
        "token_source": built["token_source"],
        "feature_summary": built["feature_summary"],
        # What the table depends on: the source revision and the knobs that change its rows.
        "data_version": f"{built['revision']}:{settings.max_rows}:{settings.tokenizer}",
    }
    metadata = {**built["metadata"], "reused_unchanged_table": built["reused"]}
    metadata["skipped"] = dg.MetadataValue.md(metadata["skipped"])
    metadata["features"] = dg.MetadataValue.md(
        "| feature | mean per trace |\n|---|---:|\n"
        + "\n".join(f"| {k} | {'—' if v is None else f'{v:.4g}'} |" for k, v in built["feature_summary"].items())
    )
    return ref, metadata


def _trace_asset(name: str, side: str, dataset_key: str, description: str):
    @dg.asset(
        name=name,
        description=description,
        partitions_def=models_partitions,
        group_name="preflight",
        kinds={"parquet", "huggingface"},
        ins={"eval_pair": dg.AssetIn()},
        retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
        pool="hub",
    )
    def _asset(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings, eval_pair: dict):
        spec = eval_pair.get(dataset_key)
        if not spec:
            raise dg.Failure(
                description=f"{name} {context.partition_key}: the eval pair has no {side} dataset "
                f"({eval_pair.get('reason')}); see the eval_pair asset's pair table"
            )
        ref, metadata = ingest_to_table(context, hub, settings, spec, name, side, eval_pair.get("benchmark"))
        return dg.Output(ref, data_version=dg.DataVersion(ref["data_version"]), metadata={"table": dg.MetadataValue.path(Path(ref["path"]).as_posix()), **metadata})

    return _asset


baseline_traces = _trace_asset(
    "baseline_traces", "baseline", "baseline_eval", "The pre-RL (base model) eval traces, normalized: one row per trial."
)
post_rl_traces = _trace_asset(
    "post_rl_traces", "post-rl", "post_rl_eval", "The post-RL checkpoint's eval traces, normalized: one row per trial."
)
