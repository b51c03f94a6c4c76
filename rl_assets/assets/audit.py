"""`learning_audit`: per task family, is the RL gain real skill, format, or a gamed reward?

Thin wrapper: reads both normalized trace tables, runs rl_assets.analysis.audit, writes
`<reports>/<slug>/audit/audit.{json,md}` (rendered by analysis/audit/report.py). Rules and thresholds: docs/audit.md.
"""

from collections import Counter
from datetime import datetime

import dagster as dg

from resources.llm import LLMResource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.audit import AUDIT_COLUMNS, labels, prereg, report
from rl_assets.analysis.audit.audit import audit_paired
from rl_assets.analysis.audit.compliance import compliance_table, format_compliance
from rl_assets.analysis.audit.contrastive_report import contrastive_summary
from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.ingest.formats.predictions import PredictionsError, file_evidence, load_predictions
from rl_assets.partitions import models_partitions
from rl_assets.support.pairing_checks import pairing_check_specs, pairing_checks
from rl_assets.support.report_files import AUDIT, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import TraceTableRef


class AuditConfig(dg.Config):
    # JSON/YAML family -> predicted label/outcome. Per run, not a deployment setting: predictions
    # are registered for one model's training run, so one deployment-wide file would be wrong.
    predictions_path: str = ""
    llm_audit: bool = True  # ask the `llm` resource for a per-family verdict when it is wired


def _training_start(registry: RegistryResource, model_id: str) -> tuple[datetime | None, str]:
    """Earliest training_start the registry has for this model, and where it came from."""
    try:
        rows = registry.client().models_by_name(model_id)
    except Exception as exc:  # any backend failure: the report says "cannot verify", run goes on
        return None, f"registry unavailable: {type(exc).__name__}: {exc}"
    starts = [r["training_start"] for r in rows if r.get("training_start")]
    return (min(starts), "registry models.training_start") if starts else (None, "")


def _llm_verdicts(context, llm: LLMResource, config: AuditConfig, rows, families, seed: int) -> str | None:
    """Attach verdicts and the contrastive second opinions (one session: one budget); returns why
    they were not produced (None when they were)."""
    if not config.llm_audit:
        return "disabled in run config"
    from rl_assets.analysis.audit.contrastive_judge import attach_second_opinions
    from rl_assets.analysis.audit.llm_verdict import attach_verdicts

    try:
        session = llm.session("judge", context.partition_key, log=context.log.info)
        attach_verdicts(rows, families, session, seed)
        attach_second_opinions(rows, families, session)
    except Exception as exc:  # optional step: a failure is reported per row, never fatal
        context.log.warning(f"llm audit failed: {exc}")
        return f"{type(exc).__name__}: {exc}"
    return None


@dg.asset(
    partitions_def=models_partitions,
    kinds={"python", "markdown"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    check_specs=[
        dg.AssetCheckSpec(
            "enough_common_tasks",
            asset="learning_audit",
            partitions_def=models_partitions,
            description=f"every task family has >= {labels.MIN_TASKS} tasks attempted by both checkpoints",
        ),
        dg.AssetCheckSpec(
            "rulers_agree",
            asset="learning_audit",
            partitions_def=models_partitions,
            description="no family's label changes between its recorded scores and the "
            "installed reasoning-gym re-score",
        ),
        *pairing_check_specs("learning_audit"),
    ],
)
def learning_audit(
    context: dg.AssetExecutionContext,
    config: AuditConfig,
    settings: AnalysisSettings,
    registry: RegistryResource,
    llm: LLMResource,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
):
    """Per task family: before/after, trivial baselines, imitation, lenient split and a label."""
    from rl_assets.ingest import read_traces

    before = read_traces(baseline_traces.path, AUDIT_COLUMNS).to_pylist()
    after = read_traces(post_rl_traces.path, AUDIT_COLUMNS).to_pylist()
    try:
        rows, families, pairing = audit_paired(
            before, after, n_boot=settings.n_boot, seed=settings.seed, normalise=settings.task_id_normalisation
        )
    except ValueError as exc:  # an unknown normalisation rule in the settings
        raise dg.Failure(description=f"learning_audit {context.partition_key}: {exc}") from exc
    llm_note = _llm_verdicts(context, llm, config, rows, families, settings.seed)

    predictions, registration = None, None
    path = config.predictions_path
    if path:
        try:
            predictions = load_predictions(path)
        except (OSError, PredictionsError) as exc:
            raise dg.Failure(description=f"learning_audit {context.partition_key}: {exc}") from exc
        start, source = _training_start(registry, context.partition_key)
        registration = prereg.registration(file_evidence(path), start, source)

    sources = {"baseline": baseline_traces.provenance(), "post_rl": post_rl_traces.provenance()}
    out = report.build_report(
        rows,
        predictions=predictions,
        registration=registration,
        sources=sources,
        llm_note=llm_note,
        pairing=pairing.report,
        format_compliance=format_compliance(families),
    )
    rendered = report.audit_report(out, context.partition_key)
    written = write_report(context.partition_key, AUDIT, rendered.files)

    thin = [
        r["family"] for r in out["rows"] if r["n_tasks"] < labels.MIN_TASKS and r["label"] not in labels.NOT_COMPARED
    ]
    unpaired = [r["family"] for r in out["rows"] if r["label"] in labels.NOT_COMPARED]
    yield dg.Output(
        # rows and sources: the per-family numbers the run lineage reads (it never reads report files)
        {
            "labels": {r["family"]: r["label"] for r in out["rows"]},
            "rows": out["rows"],
            "sources": out["sources"],
            "format_compliance": out["format_compliance"],  # INDEX.md's finding line reads it
        },
        metadata={
            "audit": dg.MetadataValue.md(rendered.summary),
            "families": len(out["rows"]),
            "labels": dict(Counter(r["label"] for r in out["rows"])),
            "held": f"{out['held']}/{out['judged']}" if predictions else "no predictions",
            "rulers": dg.MetadataValue.md(report.rulers_table(out["rows"])),
            "ruler_dependent": ", ".join(out["ruler_dependent"]) or "none",
            "pairing": dg.MetadataValue.md("\n".join(pairing_section(pairing.report, "#### Task pairing"))),
            "flagged_new_passes": dg.MetadataValue.md(contrastive_summary(out["rows"])),
            "format_compliance": dg.MetadataValue.md(compliance_table(out["format_compliance"]) or "no families"),
            **file_metadata("report", written["audit.md"]),
        },
    )
    families = len(out["rows"])  # zero families: nothing was audited, which is not a pass
    yield dg.AssetCheckResult(
        check_name="enough_common_tasks",
        passed=bool(families) and not thin and not unpaired,
        severity=dg.AssetCheckSeverity.WARN,
        description="; ".join(
            filter(
                None,
                [
                    "no task families to audit" if not families else None,
                    f"too few common tasks: {', '.join(thin)}" if thin else None,
                    f"not compared (no task on both sides): {', '.join(unpaired)}" if unpaired else None,
                ],
            )
        )
        or None,
        metadata={
            "families_below_threshold": ", ".join(thin) or "none",
            "threshold": labels.MIN_TASKS,
            "families": families,
            "families_not_compared": ", ".join(unpaired) or "none",
        },
    )
    yield rulers_check(out)
    yield from pairing_checks("learning_audit", pairing.report)


def rulers_check(out: dict) -> dg.AssetCheckResult:
    """WARN when a family's label depends on the ruler; zero families is not a pass either."""
    rows, dependent = out["rows"], out["ruler_dependent"]
    compared = [r["family"] for r in rows if r["rulers"]["depends_on_ruler"] is not None]
    single = [r["family"] for r in rows if r["rulers"]["depends_on_ruler"] is None]
    if not rows:
        description = "no task families to audit"
    elif dependent:
        description = "; ".join(
            next(r["rulers"]["flag"] for r in rows if r["family"] == f) + f" [{f}]" for f in dependent
        )
    elif not compared:
        description = "one ruler only (no family could be re-scored): nothing to cross-check"
    else:
        description = f"{len(compared)} families keep their label under both rulers"
    return dg.AssetCheckResult(
        check_name="rulers_agree",
        passed=bool(rows) and not dependent,
        severity=dg.AssetCheckSeverity.WARN,
        description=description,
        metadata={
            "ruler_dependent": ", ".join(dependent) or "none",
            "compared": len(compared),
            "recorded_ruler_only": ", ".join(single) or "none",
        },
    )
