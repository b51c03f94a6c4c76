"""`baseline_traces`, `post_rl_traces`: the eval pair's datasets as normalized trace tables.

Each source is ingested once per partition, in record batches, to a parquet table in the store
(rl_assets/store.py, under RLDELTA_STORAGE); every analysis reads that table (the value passed
between assets is a small reference dict naming its location). The
asset check `every_input_accounted_for` shows the ingest's ledger (found = written + skipped +
merged, for inputs and for rows) and fails when anything found was lost (docs/ingest.md).
"""

import dagster as dg

from resources.hub import HubError, HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.report_md import md_table
from rl_assets.partitions import models_partitions
from rl_assets.trace_tables import ingest_addressed


def ingest_to_table(context, hub: HubResource, settings: AnalysisSettings, spec: str, asset_name: str, side: str, benchmark=None):
    """Ingest one source for this partition (or reuse its unchanged table); returns (reference dict, Dagster metadata).

    The table lives at `<storage>/tables/<asset>/<slug>/<source digest>.parquet`: a run configured with
    other sources writes another file, and an edited local source gets a new digest (its data version)."""
    try:
        built = ingest_addressed(hub.client(), spec, asset_name, context.partition_key, max_rows=settings.max_rows, tokenizer=settings.tokenizer,
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
        # What the table depends on: the source revision (Hub) or content fingerprint (local) and the
        # knobs that change its rows; hashed, it is also the table's file name.
        "data_version": built["data_version"],
    }
    metadata = {**built["metadata"], "reused_unchanged_table": built["reused"]}
    metadata["skipped"] = dg.MetadataValue.md(metadata["skipped"])
    if "accounting" in metadata:
        metadata["accounting"] = dg.MetadataValue.md(metadata["accounting"])
    ref["accounting"] = built.get("accounting") or {}
    metadata["features"] = dg.MetadataValue.md(md_table(
        ["feature", "mean per trace"],
        [[k, "—" if v is None else f"{v:.4g}"] for k, v in built["feature_summary"].items()], align="-r"))
    return ref, metadata


ACCOUNTED = "every_input_accounted_for"


def accounted_check_spec(asset: str) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(ACCOUNTED, asset=asset, partitions_def=models_partitions, description=(
        "Every file, trial folder and row the ingest found is written, skipped for a stated reason, or merged "
        "as a duplicate; fails when anything was lost (a skip or an unread file that is not by design)."))


def accounted_check(asset: str, acc: dict) -> dg.AssetCheckResult:
    """The ledger of one ingest as the check's result: passed when nothing found was lost."""
    if not acc:  # nothing was read (a source that does not apply)
        return dg.AssetCheckResult(check_name=ACCOUNTED, asset_key=asset, passed=True,
                                   metadata={"applicable": False})
    from rl_assets.ingest.report import accounting_markdown

    lost = acc["lost"]
    return dg.AssetCheckResult(
        check_name=ACCOUNTED, asset_key=asset, passed=lost == 0, severity=dg.AssetCheckSeverity.ERROR,
        description=f"{lost} of {acc['found']} {acc['units']} / {acc['inputs_found']} inputs lost" if lost
        else f"all {acc['found']} {acc['units']} found are written, skipped by design or merged",
        metadata={"units": acc["units"], "found": acc["found"], "written": acc["written"],
                  "skipped": sum(acc["skipped"].values()), "merged": sum(acc["merged"].values()), "lost": lost,
                  "inputs_found": acc["inputs_found"], "inputs_read": acc["inputs_read"],
                  "inputs_not_read": sum(acc["not_read"].values()),
                  "ledger": dg.MetadataValue.md(accounting_markdown(acc))})


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
        check_specs=[accounted_check_spec(name)],
    )
    def _asset(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings, eval_pair: dict):
        spec = eval_pair.get(dataset_key)
        if not spec:
            raise dg.Failure(
                description=f"{name} {context.partition_key}: the eval pair has no {side} dataset "
                f"({eval_pair.get('reason')}); see the eval_pair asset's pair table"
            )
        ref, metadata = ingest_to_table(context, hub, settings, spec, name, side, eval_pair.get("benchmark"))
        yield dg.Output(ref, data_version=dg.DataVersion(ref["data_version"]), metadata={"table": dg.MetadataValue.path(ref["path"]), **metadata})
        yield accounted_check(name, ref["accounting"])

    return _asset


baseline_traces = _trace_asset(
    "baseline_traces", "baseline", "baseline_eval", "The pre-RL (base model) eval traces, normalized: one row per trial."
)
post_rl_traces = _trace_asset(
    "post_rl_traces", "post-rl", "post_rl_eval", "The post-RL checkpoint's eval traces, normalized: one row per trial."
)
