"""`run_lineage`: one RL job's checkpoints in step order, and when each change emerged (docs/lineage.md).

Thin wrapper, one partition per RL job (`rl_jobs`, keyed by `job_name`): reads what every member
checkpoint's assets stored through the IO manager (manifest, eval pair, Q1, audit, judge, Q2
curves, trace-table references), their post-RL trace tables and the job's rollout table, calls
rl_assets.analysis.lineage, and writes what lineage/report.py renders: `<reports>/runs/<job>/lineage.{md,json}`
with three PNGs.
It has no Dagster deps on the per-model assets (no partition mapping joins `rl_jobs` to `models`):
sensors/lineage_sensor.py requests it after a member's analysis run ends.
"""

import dagster as dg

from resources.io_manager import load_stored
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.report import lineage_report
from rl_assets.analysis.lineage.rollouts import ROLLOUT_COLUMNS
from rl_assets.analysis.lineage.steps import training_step
from rl_assets.analysis.q1.behavioral_delta import NEEDED
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.partitions import InvalidRepoId, models_partitions, rl_jobs_partitions, validate_job_name
from rl_assets.support.checks import not_applicable
from rl_assets.support.report_files import write_lineage
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import TraceTableRef

ASSET = "run_lineage"
STORED = (
    "eval_pair",
    "behavioral_delta",
    "learning_audit",
    "judge_verdicts",
    "training_metrics",
    "post_rl_traces",
    "rl_traces",
    "reward_integrity",
)
CHECKS = {
    "enough_checkpoints": (
        "At least two checkpoints of the job can be compared (one base, one benchmark); "
        "not applicable (passed) when the job has a single analysed checkpoint."
    ),
    "all_checkpoints_comparable": "Every analysed checkpoint of the job entered the lineage (none excluded).",
    "training_curves_found": (
        "The job's training logs gave reward / entropy / KL / response-length curves; "
        "not applicable (passed) when the job published no training logs."
    ),
}


class LineageConfig(dg.Config):
    benchmark: str = ""  # pin the lineage to this benchmark; "" = the one most checkpoints were evaluated on


def job_checkpoints(instance: dg.DagsterInstance, io_manager: dg.IOManager, job: str) -> dict[str, dict]:
    """model id -> its stored values, for every model partition whose manifest names this job."""
    out = {}
    for model in instance.get_dynamic_partitions(models_partitions.name):
        manifest = load_stored(io_manager, "checkpoint", model, instance)
        if isinstance(manifest, dict) and manifest.get("job_name") == job:
            stored = {a: load_stored(io_manager, a, model, instance) for a in STORED}
            out[model] = {"checkpoint": manifest, **stored}
    return out


def _table(ref, columns):
    """The trace table `ref` names, or None when it is not a stored TraceTableRef (never materialized,
    not applicable) or its file is gone."""
    from rl_assets import store
    from rl_assets.ingest import read_traces

    if not isinstance(ref, TraceTableRef) or not store.exists(ref.path):
        return None
    return read_traces(ref.path, columns)


def _rollouts(stored: dict[str, dict]):
    """The job's rollout table, from the latest checkpoint (by step) that ingested it."""
    ordered = sorted(stored.items(), key=lambda kv: training_step(kv[0], kv[1]["checkpoint"].get("rl_config"))[0] or -1)
    for _, values in reversed(ordered):
        ref = values.get("rl_traces")
        table = _table(ref, ROLLOUT_COLUMNS)
        if table is not None:
            return table.to_pandas(), ref.source
    return None


@dg.asset(
    name=ASSET,
    partitions_def=rl_jobs_partitions,
    group_name="lineage",
    kinds={"python", "markdown", "matplotlib"},
    check_specs=[
        dg.AssetCheckSpec(name, asset=ASSET, partitions_def=rl_jobs_partitions, description=d)
        for name, d in CHECKS.items()
    ],
)
def run_lineage(
    context: dg.AssetExecutionContext,
    config: LineageConfig,
    settings: AnalysisSettings,
    io_manager: dg.ResourceParam[dg.IOManager],
):
    """What RL changed across the checkpoints of one training job, in step order, and when each change emerged."""
    job = context.partition_key
    try:
        validate_job_name(job)  # before any work: a bad job name fails here, not after the analysis
    except InvalidRepoId as exc:
        raise dg.Failure(description=f"run_lineage {job}: {exc}", allow_retries=False) from exc
    stored = job_checkpoints(context.instance, io_manager, job)
    tables = {m: _table(v.get("post_rl_traces"), NEEDED) for m, v in stored.items()}
    result = build_lineage(
        job,
        stored,
        tables=tables,
        rollouts=_rollouts(stored),
        benchmark=config.benchmark or None,
        n_boot=settings.n_boot,
        seed=settings.seed,
    )
    report = lineage_report(result)
    written = write_lineage(job, report.files)
    members = [m["repo_id"] for m in result["members"]]
    yield dg.MaterializeResult(
        metadata={
            "lineage": dg.MetadataValue.md(report.summary),
            **file_metadata("report", written["lineage.md"]),
            "members": dg.MetadataValue.json(members),
            "steps": dg.MetadataValue.json([m["step"] for m in result["members"]]),
            "benchmark": str(result["pinned"]["benchmark"]),
            "n_checkpoints": len(members),
            "n_excluded": len(result["excluded"]),
        }
    )
    counts = {"checkpoints": len(members), "job_checkpoints_found": len(stored)}
    if len(stored) < 2:  # one checkpoint has no lineage to draw, by design: red must mean something is wrong
        found = "1 checkpoint of job {job} is analysed" if stored else "no checkpoint of job {job} is analysed yet"
        reason = found.format(job=job) + "; a lineage compares two or more"
        yield not_applicable("enough_checkpoints", reason, **counts)
    else:
        yield dg.AssetCheckResult(
            check_name="enough_checkpoints",
            passed=len(members) >= 2,
            severity=dg.AssetCheckSeverity.WARN,
            description=f"{len(members)} of the job's {len(stored)} analysed checkpoints entered the lineage"
            + ("" if len(members) >= 2 else " (see all_checkpoints_comparable for why the others did not)"),
            metadata=counts,
        )
    yield dg.AssetCheckResult(
        check_name="all_checkpoints_comparable",
        passed=not result["excluded"],
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "excluded": dg.MetadataValue.md(
                "\n".join(f"- {md_code(e['repo_id'])}: {md_text(e['reason'])}" for e in result["excluded"]) or "none"
            )
        },
    )
    if result["curves"]["source"]:
        yield dg.AssetCheckResult(
            check_name="training_curves_found", passed=True, metadata={"detail": result["curves"]["note"]}
        )
    else:  # a job published without training logs: by design, not a fault
        yield not_applicable(
            "training_curves_found", result["curves"]["note"] or "no training logs in the job's checkpoints"
        )
