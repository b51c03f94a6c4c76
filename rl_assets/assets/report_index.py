"""`analysis_index` (report): the per-model INDEX.md, built from the Dagster event log.

It depends on every other analysis asset, so `analyze_model` writes INDEX.md as its last step (no
second run between an upload and its INDEX.md). A Dagster asset never runs after a failed parent in
the same run, though, and INDEX.md must report failures too: so after a per-model run ends without
having written it (a failure, or a run of a few assets), `sensors/index_sensor.py` requests a
`write_index` run, and `rldelta demo` does the same. What it reports comes from the instance, not from files: each
asset's latest materialization for this partition (run, time, data version, input versions,
output paths), or its latest planned-but-failed run with the step's error, or "not applicable"
with the reason the asset recorded. The findings summary comes from the values the assets stored.
"""

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import dagster as dg

from resources.io_manager import latest_value, read_value
from rl_assets.analysis.lineage.index_links import index_links
from rl_assets.analysis.render.index_md import mark_stale, render_index, render_summary
from rl_assets.partitions import data_version, latest_materialization, models_partitions
from rl_assets.settings import ui_url
from rl_assets.store import report_dir
from rl_assets.support.lineage_records import lineages_of
from rl_assets.support.report_files import links_in_model_folder, model_report_files, write_index
from rl_assets.support.report_links import file_metadata, url_of
from rl_assets.support.run_liveness import run_process_gone
from rl_assets.values.handover import NotApplicable
from rl_assets.values.results import index_text, result_type


def analysis_steps(assets) -> dict[dg.AssetKey, tuple[str, str]]:
    """{asset key: (group, step/op name)} of every per-model analysis asset among `assets` (ANALYSIS,
    the flattened list of rl_assets/assets/__init__.py), the index itself excluded, in INDEX.md order:
    groups in the order the list first names them, keys by name within a group."""
    found: dict[dg.AssetKey, tuple[str, str]] = {}
    group_order: dict[str, int] = {}
    for obj in assets:
        if not isinstance(obj, dg.AssetsDefinition) or obj.partitions_def != models_partitions:
            continue
        for key in obj.keys:
            group = obj.group_names_by_key[key]  # every key has one: in_group sets it
            if group != "report":
                group_order.setdefault(group, len(group_order))
                found[key] = (group, obj.node_def.name)
    return dict(sorted(found.items(), key=lambda kv: (group_order[kv[1][0]], kv[0].to_user_string())))


def _materialization(record: dg.EventLogRecord) -> dg.AssetMaterialization:
    """The materialization a record of fetch_materializations carries (Dagster types it optional, for any event)."""
    event = record.asset_materialization
    if event is None:
        raise ValueError(f"event log record {record.storage_id} holds no asset materialization")
    return event


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).replace(microsecond=0).isoformat()


def _links(metadata: Mapping[str, Any], partition: str) -> list[str]:
    """Output paths the asset recorded in its metadata that live in the model's report folder (relative);
    storage paths (parquet tables, IO-manager JSON) are not report outputs and are left out."""
    return links_in_model_folder(partition, [v.path for v in metadata.values() if isinstance(v, dg.PathMetadataValue)])


def _not_applicable(metadata: Mapping[str, Any]) -> str | None:
    """The reason an asset recorded for not applying: metadata `applicable`=False, or its stored value
    (a NotApplicable, or a summary dict with `applicable`=False)."""
    value = lambda k: getattr(metadata.get(k), "value", None)  # noqa: E731
    if value("applicable") is False:
        return str(value("reason") or "not applicable")
    stored = metadata.get("stored_at")
    if isinstance(stored, dg.PathMetadataValue):
        out = read_value(stored.path)
        if isinstance(out, NotApplicable):
            return out.reason
        if isinstance(out, dict) and out.get("applicable") is False:
            return str(out.get("reason") or "not applicable")
    return None


def _failure(instance, run_id: str, step: str) -> str:
    """The error of `step` in a failed run, or which upstream step failure kept it from running."""
    failures = instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_FAILURE)
    for event in failures:
        if event.step_key == step:
            return event.dagster_event.step_failure_data.error.message.strip().splitlines()[-1][:300]
    if failures:
        first = failures[0]
        msg = first.dagster_event.step_failure_data.error.message.strip().splitlines()[-1][:200]
        return f"not run: upstream step `{first.step_key}` failed ({msg})"
    run = instance.get_run_by_id(run_id)
    return f"not materialized; run status {run.status.value if run else 'unknown'}"


def asset_status(
    instance, key: dg.AssetKey, partition: str, *, group: str, step: str, versions: dict | None = None
) -> dict:
    """materialized / not applicable / failed / running / never materialized, from the event log.
    `versions`: upstream data versions already read (see _upstream_version), shared across one INDEX.md."""
    base: dict[str, Any] = {
        "asset": key.to_user_string(),
        "group": group,
        "run_id": "",
        "timestamp": None,
        "links": [],
        "inputs": {},
    }
    mat = latest_materialization(instance, key, partition)
    if versions is not None:
        _offer_latest(versions, key.to_user_string(), partition, mat)
    planned = instance.get_latest_planned_materialization_info(key, partition)
    if planned is not None and (mat is None or (planned.run_id != mat.run_id and planned.storage_id > mat.storage_id)):
        run = instance.get_run_by_id(planned.run_id)
        if run is not None and not run.is_finished:
            if run_process_gone(instance, planned.run_id):  # kill -9 / OOM: it will never finish
                return {
                    **base,
                    "status": "interrupted",
                    "run_id": planned.run_id,
                    "timestamp": "unknown",
                    "last_success": mat.run_id if mat else None,
                }
            return {**base, "status": "running", "run_id": planned.run_id, "timestamp": "now"}
        if run is not None and run.status != dg.DagsterRunStatus.SUCCESS:
            record = instance.get_run_record_by_id(planned.run_id)
            ended = (record.end_time or record.start_time) if record else None
            return {
                **base,
                "status": "failed",
                "run_id": planned.run_id,
                "timestamp": _iso(ended) if ended else "unknown",
                "error": _failure(instance, planned.run_id, step),
                "last_success": mat.run_id if mat else None,
                "links": _links(_materialization(mat).metadata, partition) if mat else [],
            }
    if mat is None:
        return {**base, "status": "never materialized"}
    event = _materialization(mat)
    tags = event.tags or {}
    prefix = "dagster/input_data_version/"
    info = {
        **base,
        "run_id": mat.run_id,
        "timestamp": _iso(mat.timestamp),
        "data_version": data_version(mat),
        "links": _links(event.metadata, partition),
        "inputs": {
            k[len(prefix) :]: _upstream_version(instance, k[len(prefix) :], partition, v, versions)
            for k, v in tags.items()
            if k.startswith(prefix)
        },
    }
    reason = _not_applicable(event.metadata)
    return {**info, "status": "not applicable", "reason": reason} if reason else {**info, "status": "materialized"}


def _upstream_version(instance, key: str, partition: str, recorded: str, versions: dict | None = None) -> str:
    """The upstream's own data version (as its page in the UI shows it) behind a recorded input version.

    Dagster records a partitioned input as sha256 of the upstream partition's data version, so the raw
    tag never equals the upstream's version; it is matched against the partition's recent history.
    Unmatched (older than that history): the recorded value, which then reads as stale.
    `versions` keeps each upstream's history once read: one INDEX.md asks for the same upstream (the eval
    pair, the trace tables) from many assets, and each record carries its whole metadata, plots included.
    """
    versions = {} if versions is None else versions
    flt = dg.AssetRecordsFilter(asset_key=dg.AssetKey.from_user_string(key), asset_partitions=[partition])
    for limit in (1, 50):  # the latest first: an input that is not stale matches it
        if (key, partition, limit) not in versions:
            records = instance.fetch_materializations(flt, limit=limit).records
            versions[key, partition, limit] = [data_version(r) for r in records]
        for version in versions[key, partition, limit]:
            if version and recorded in (version, hashlib.sha256(version.encode()).hexdigest()):
                return version
        if len(versions[key, partition, limit]) < limit:
            break  # that was the whole history
    return recorded


def _offer_latest(versions: dict, key: str, partition: str, latest: dg.EventLogRecord | None) -> None:
    """An asset's own latest record, read for its status, is the history of length 1 that
    `_upstream_version` looks up first for the assets downstream of it: it need not be read again."""
    versions.setdefault((key, partition, 1), [data_version(latest)] if latest else [])


def write_index_md(context: dg.AssetExecutionContext, steps: dict[dg.AssetKey, tuple[str, str]]):
    """The body of `analysis_index` (built by build_analysis_index): statuses of `steps`, INDEX.md."""
    partition = context.partition_key
    folder = report_dir(partition)
    versions: dict = {}  # upstream histories, each read once for the whole INDEX.md
    statuses = [
        asset_status(context.instance, key, partition, group=group, step=step, versions=versions)
        for key, (group, step) in steps.items()
    ]
    status_of = {x["asset"]: x["status"] for x in statuses}

    # Findings come from the values the assets stored (never from report files, which are outputs), read as
    # each analysis's result type (rl_assets/values/results.py), in INDEX.md's order; an asset whose latest run
    # did not succeed has its lines marked as from an older value.
    headline: list[str] = []
    findings: list[str] = []
    for key in steps:
        asset = key.to_user_string()
        if result_type(asset) is None:
            continue  # no findings of its own (a trace table, the checkpoint): its value is not read
        top, lines = index_text(asset, latest_value(context.instance, asset, partition))
        headline += mark_stale(top, asset, status_of.get(asset))
        findings += mark_stale(lines, asset, status_of.get(asset))
    findings += index_links(partition, folder, lineages_of(context.instance, partition))  # its RL job's run lineage
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    text = render_index(
        partition, now, statuses, model_report_files(partition), findings, ui_url=ui_url(), headline=headline
    )
    index = write_index(partition, text)
    counts = {s: sum(x["status"] == s for x in statuses) for s in {x["status"] for x in statuses}}
    return dg.Output(
        {"statuses": {s["asset"]: s["status"] for s in statuses}},
        metadata={
            **file_metadata("path", index, inline=False),
            "index": dg.MetadataValue.md(render_summary(statuses, headline + findings, ui_url(), url_of(folder))),
            **{f"n_{k.replace(' ', '_')}": v for k, v in counts.items()},
        },
    )


def build_analysis_index(assets) -> dg.AssetsDefinition:
    """`analysis_index`, depending on every per-model analysis asset among `assets`.

    A factory rather than a module-level asset: the asset list is written out once, in
    rl_assets/assets/__init__.py (ANALYSES), and rl_assets/definitions.py passes it here (no package
    scan, no import of other assets).
    """
    steps = analysis_steps(assets)

    @dg.asset(
        partitions_def=models_partitions,
        group_name="report",
        kinds={"markdown"},
        deps=list(steps),  # last step of a run that targets them; statuses still come from the event log
    )
    def analysis_index(context: dg.AssetExecutionContext):
        """INDEX.md: every analysis asset's status, versions and outputs for this model, plus key findings."""
        return write_index_md(context, steps)

    return analysis_index
