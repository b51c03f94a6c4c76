"""`baseline_traces`, `post_rl_traces`: the eval pair's datasets as normalized trace tables.

Each source is ingested once per partition, in record batches, to a parquet table in the store
(rl_assets/store.py, under RLDELTA_STORAGE); every analysis reads that table (the value passed
between assets is a TraceTableRef naming its location). The
asset check `every_input_accounted_for` shows the ingest's ledger (found = written + skipped +
merged, for inputs and for rows) and fails when anything found was lost (docs/ingest.md); the check
`matches_toolkit_metrics` compares an eval toolkit's own summary with what was read (docs/formats.md).

The two tables are one step (`eval_traces`, a multi-asset that can be subset): when a run wants
both and both must be read, the post-RL side is ingested in a forked child while this process
ingests the baseline (rl_assets/support/forked_call.py), since each side is one Python loop on one
core; a run that selects one of them ingests only that one. A side whose source fails does not
stop the other: the other is still materialized, then the step fails naming the side(s).
"""

import dagster as dg

from resources.hub import HubResource
from resources.settings_resource import AnalysisSettings
from rl_assets.ingest import release_unused_memory, warm_imports
from rl_assets.partitions import models_partitions
from rl_assets.support.checks import accounted_check, accounted_check_spec, toolkit_check, toolkit_check_spec
from rl_assets.support.forked_call import ForkedCall
from rl_assets.support.ingest_step import build_table, table_ref

# (asset, side as the reports name it, the eval pair's key for its source, description)
SIDES = (
    (
        "baseline_traces",
        "baseline",
        "baseline_eval",
        "The pre-RL (base model) eval traces, normalized: one row per trial.",
    ),
    (
        "post_rl_traces",
        "post-rl",
        "post_rl_eval",
        "The post-RL checkpoint's eval traces, normalized: one row per trial.",
    ),
)


@dg.multi_asset(
    name="eval_traces",
    outs={
        name: dg.AssetOut(description=description, kinds={"parquet", "huggingface"}, is_required=False)
        for name, _side, _key, description in SIDES
    },
    can_subset=True,
    partitions_def=models_partitions,
    ins={"eval_pair": dg.AssetIn()},
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
    pool="hub",
    check_specs=[spec for name, *_ in SIDES for spec in (accounted_check_spec(name), toolkit_check_spec(name))],
)
def eval_traces(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings, eval_pair: dict):
    """The selected sides' trace tables; both at once when both must be read (module docstring)."""
    partition = context.partition_key
    selected = {key.to_user_string() for key in context.selected_asset_keys}
    wanted = [s for s in SIDES if s[0] in selected]
    failures: list[dg.Failure] = []
    to_read = []  # (asset, side, spec): the selected sides whose source the eval pair names
    for name, side, dataset_key, _ in wanted:
        spec = eval_pair.get(dataset_key)
        if spec:
            to_read.append((name, side, spec))
        else:
            failures.append(
                dg.Failure(
                    description=f"{name} {partition}: the eval pair has no {side} dataset "
                    f"({eval_pair.get('reason')}); see the eval_pair asset's pair table"
                )
            )

    benchmark = eval_pair.get("benchmark")

    def build(name: str, side: str, spec: str):
        return lambda: build_table(hub.client(), settings, spec, name, partition, side, benchmark)

    beside = None
    if len(to_read) == 2:
        warm_imports()  # once, before the fork: the child starts with them instead of importing them again
        beside = ForkedCall(build(*to_read[1]), label=f"{to_read[1][0]} {partition}")
        context.log.info(f"{to_read[1][0]} is ingested beside {to_read[0][0]}: {beside.how}")
    results = []
    try:
        for i, (name, side, spec) in enumerate(to_read):
            built_by = beside.result if (beside is not None and i == 1) else build(name, side, spec)
            try:
                results.append((name, *table_ref(built_by, settings, spec, name, partition, side, benchmark)))
            except dg.Failure as failure:
                failures.append(failure)
    finally:
        if beside is not None:
            beside.cancel()  # a no-op once its result was read; stops it when this process failed first
    release_unused_memory()  # the ingest's freed buffers, before the run's next steps

    for name, ref, metadata in results:
        if ref.data_version is None:  # build_table always sets it (the source digest)
            failures.append(
                dg.Failure(description=f"{name} {partition}: the ingest of {ref.source} returned no data version")
            )
            continue
        if beside is not None:
            metadata["ingested_beside_the_other_side"] = beside.how
        yield dg.MaterializeResult(
            asset_key=name,
            value=ref,
            data_version=dg.DataVersion(ref.data_version),
            metadata={"table": dg.MetadataValue.path(ref.path), **metadata},
        )
        selected_checks = context.selected_asset_check_keys
        for check in (accounted_check(name, ref.accounting), toolkit_check(name, ref.accounting)):
            if dg.AssetCheckKey(dg.AssetKey(name), check.check_name or "") in selected_checks:
                yield check
    if failures:
        if len(failures) == 1:
            raise failures[0]
        raise dg.Failure(
            description="; ".join(f.description or "" for f in failures),
            allow_retries=all(f.allow_retries for f in failures),
        )
