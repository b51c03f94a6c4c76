"""`behavioral_delta` (Q1): what RL changed in behaviour, with intervals, paired tests and flips.

Reads the two normalized trace tables, calls the pure analysis, writes what
rl_assets/analysis/q1/report.py renders into `<reports>/<slug>/Q1_behavioral_delta/report.{md,json}`
and checks that the comparison is valid.
"""

import dagster as dg
from dagster import AssetExecutionContext

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis import stats
from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.analysis.q1.behavioral_delta import NEEDED, compute_behavioral_delta
from rl_assets.analysis.q1.report import behavioral_delta_report
from rl_assets.analysis.render.report_md import jsonable
from rl_assets.partitions import models_partitions
from rl_assets.support.metadata_numbers import rounded_metadata
from rl_assets.support.pairing_checks import pairing_check_specs, pairing_checks
from rl_assets.support.report_files import Q1_BEHAVIORAL_DELTA, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import FailureModeTableRef, TraceTableRef

ASSET = "behavioral_delta"


def failure_mode_labels(failure_modes: FailureModeTableRef) -> dict[str, str]:
    """trace_id -> failure-mode category from the `failure_modes` asset's table (failed rows left out)."""
    from rl_assets import store

    path = failure_modes.path
    if not store.exists(path):
        # A stored value naming a table that is gone (a cleaned home, another machine's disk): running
        # on without it would name an annotator whose labels were never applied.
        raise dg.Failure(
            description=f"the failure_modes table {path} named by the latest failure_modes value is "
            "missing; re-materialize failure_modes for this model",
            allow_retries=False,
        )
    table = store.read_table(path, columns=["trace_id", "failure_mode", "status"]).to_pylist()
    return {r["trace_id"]: r["failure_mode"] for r in table if r["failure_mode"] and r["status"] != "failed"}


def with_failure_modes(table, labels: dict[str, str]):
    """The trace table with its failure_mode column filled from the annotation, where it has one."""
    import pyarrow as pa

    if not labels:
        return table
    current = table.column("failure_mode").to_pylist()
    merged = [labels.get(tid, cur) for tid, cur in zip(table.column("trace_id").to_pylist(), current)]
    return table.set_column(table.schema.get_field_index("failure_mode"), "failure_mode", pa.array(merged, pa.string()))


def _enough_data(r: dict) -> tuple[bool, str]:
    if r.get("invalid_for_comparison"):
        return False, r["invalid_for_comparison"]
    if r["common_tasks"] < stats.MIN_COMMON_TASKS:
        return False, f"{r['common_tasks']} common tasks (need >= {stats.MIN_COMMON_TASKS} for intervals)"
    missing = [f["feature"] for f in r["features"] if "delta" not in f]
    return True, f"{r['common_tasks']} common tasks" + (f"; no data for {', '.join(missing)}" if missing else "")


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"python", "markdown"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn(), "failure_modes": dg.AssetIn()},
    check_specs=[
        dg.AssetCheckSpec(
            "has_common_tasks",
            asset=ASSET,
            partitions_def=models_partitions,
            description="Baseline and post-RL share at least one task (else no paired comparison).",
        ),
        dg.AssetCheckSpec(
            "enough_data",
            asset=ASSET,
            partitions_def=models_partitions,
            description=f"At least {stats.MIN_COMMON_TASKS} common tasks for intervals and tests.",
        ),
        *pairing_check_specs(ASSET),
    ],
)
def behavioral_delta(
    context: AssetExecutionContext,
    settings: AnalysisSettings,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
    failure_modes: FailureModeTableRef,
):
    """Behaviour deltas baseline → post-RL with task-clustered CIs, Holm-adjusted tests and McNemar flips."""
    from rl_assets.ingest import read_traces

    labels = failure_mode_labels(failure_modes)
    before = with_failure_modes(read_traces(baseline_traces.path, columns=(*NEEDED, "trace_id")), labels)
    after = with_failure_modes(read_traces(post_rl_traces.path, columns=(*NEEDED, "trace_id")), labels)
    try:
        result = jsonable(
            compute_behavioral_delta(
                before, after, n_boot=settings.n_boot, seed=settings.seed, normalise=settings.task_id_normalisation
            )
        )
    except ValueError as exc:  # an unknown normalisation rule in the settings
        raise dg.Failure(description=f"{ASSET} {context.partition_key}: {exc}", allow_retries=False) from exc
    # Whoever labelled the failure modes is named next to them (the offline heuristic says so).
    result["failure_mode_annotator"] = failure_modes.annotator
    result["sources"] = {
        "baseline": baseline_traces.provenance(),
        "post-RL": post_rl_traces.provenance(),
    }
    report = behavioral_delta_report(result)
    written = write_report(context.partition_key, Q1_BEHAVIORAL_DELTA, report.files)
    metadata = {
        "summary": dg.MetadataValue.md(report.summary),
        **file_metadata("report", written["report.md"]),
        "n_before": result["before"]["n_rows"],
        "n_after": result["after"]["n_rows"],
        "common_tasks": result["common_tasks"],
        "pairing": dg.MetadataValue.md("\n".join(pairing_section(result["pairing"], "#### Task pairing"))),
        "n_significant_features": sum(f["significant"] for f in result.get("features", [])),
    }
    if "task_flips" in result:
        metadata["mcnemar_p"] = dg.MetadataValue.float(float(result["task_flips"]["mcnemar_p"]))
    yield dg.Output(result, metadata=rounded_metadata(metadata))
    invalid = result.get("invalid_for_comparison")
    yield dg.AssetCheckResult(
        check_name="has_common_tasks",
        passed=not invalid,
        metadata={"common_tasks": result["common_tasks"], "reason": invalid or "ok"},
    )
    ok, why = _enough_data(result)
    yield dg.AssetCheckResult(
        check_name="enough_data", passed=ok, severity=dg.AssetCheckSeverity.WARN, metadata={"detail": why}
    )
    yield from pairing_checks(ASSET, result["pairing"])
