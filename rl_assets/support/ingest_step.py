"""The ingest step every trace-table asset runs (baseline_traces, post_rl_traces, rl_traces): one
source for one partition -> its normalized table (reused when unchanged), the TraceTableRef the
asset returns, and the Dagster metadata it logs. Below the asset layer, so the assets share it
without importing each other (docs/contracts.md, "Layers")."""

from collections.abc import Callable

import dagster as dg

from resources.hub import HubError, HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets.ingest.report import IngestError
from rl_assets.support.trace_tables import ingest_addressed
from rl_assets.values.escape import md_table
from rl_assets.values.handover import TraceTableRef


def ingest_to_table(
    context,
    hub: HubResource,
    settings: AnalysisSettings,
    spec: str,
    asset_name: str,
    side: str,
    benchmark=None,
    repo_id: str | None = None,
) -> tuple[TraceTableRef, dict]:
    """Ingest one source for this partition (or reuse its unchanged table); returns (its reference, Dagster metadata).

    The table lives at `<storage>/tables/<asset>/<slug>/<source digest>.parquet`: a run configured with
    other sources writes another file, and an edited local source gets a new digest (its data version)."""
    return table_ref(
        lambda: build_table(hub.client(), settings, spec, asset_name, context.partition_key, side, benchmark),
        settings,
        spec,
        asset_name,
        context.partition_key,
        side,
        benchmark,
        repo_id,
    )


def build_table(client, settings: AnalysisSettings, spec: str, asset_name: str, partition: str, side: str, benchmark):
    """The ingest itself (no Dagster context; a plain dict back), so it can run in a forked child
    (rl_assets/support/forked_call.py) as well as in the step's own process."""
    return ingest_addressed(
        client,
        spec,
        asset_name,
        partition,
        max_rows=settings.max_rows,
        tokenizer=settings.tokenizer,
        benchmark=benchmark,
        side=side,
    )


def table_ref(
    built_by: Callable[[], dict],
    settings: AnalysisSettings,
    spec: str,
    asset_name: str,
    partition: str,
    side: str,
    benchmark=None,
    repo_id: str | None = None,
) -> tuple[TraceTableRef, dict]:
    """(reference, metadata) of the table `built_by()` returns (build_table's dict); its input errors
    become the step's dg.Failure naming the asset, partition and source."""
    try:
        built = built_by()
    except (HubError, FileNotFoundError) as exc:
        raise dg.Failure(description=f"{asset_name} {partition}: cannot read {spec}: {exc}") from exc
    except IngestError as exc:  # the input itself (rows not understood, a corrupt file): a retry reads the same bytes
        raise dg.Failure(
            description=f"{asset_name} {partition}: cannot ingest {spec}: {exc}", allow_retries=False
        ) from exc
    ref = TraceTableRef(
        path=built["path"],
        rows=built["rows"],
        rows_read=built["rows_read"],
        skipped=built["skipped"],
        source=spec,
        source_kind=built["source_kind"],
        revision=built["revision"],
        benchmark=benchmark,
        side=side,
        max_rows=settings.max_rows,
        token_source=built["token_source"],
        feature_summary=built["feature_summary"],
        # What the table depends on: the source revision (Hub) or content fingerprint (local) and the
        # knobs that change its rows; hashed, it is also the table's file name.
        data_version=built["data_version"],
        accounting=built.get("accounting") or {},
        repo_id=repo_id,
    )
    metadata = {**built["metadata"], "reused_unchanged_table": built["reused"]}
    metadata["skipped"] = dg.MetadataValue.md(metadata["skipped"])
    if "accounting" in metadata:
        metadata["accounting"] = dg.MetadataValue.md(metadata["accounting"])
    metadata["features"] = dg.MetadataValue.md(
        md_table(
            ["feature", "mean per trace"],
            [[k, "—" if v is None else f"{v:.4g}"] for k, v in built["feature_summary"].items()],
            align="-r",
        )
    )
    return ref, metadata
