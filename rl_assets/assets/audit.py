"""`learning_audit`: per task family, is the RL gain real skill, format, or a gamed reward?

Thin wrapper: reads both normalized trace tables (and the run's registered predictions), runs
rl_assets.analysis.audit (its result: analysis/audit/result.py) and emits it: the stored value,
`<reports>/<slug>/audit/audit.{json,md}` (rendered by analysis/audit/report.py), metadata and checks.
Rules and thresholds: docs/audit.md.
"""

from datetime import datetime
from typing import Any

import dagster as dg

from resources.llm import LLMResource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.audit import AUDIT_COLUMNS, labels, prereg
from rl_assets.analysis.audit.audit import audit_paired
from rl_assets.analysis.audit.compliance import format_compliance
from rl_assets.analysis.audit.result import ENOUGH_TASKS, RULERS_AGREE, LearningAudit, analyse_audit
from rl_assets.analysis.audit.tasks import Family
from rl_assets.ingest.formats.predictions import PredictionsError, file_evidence, load_predictions
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import emit
from rl_assets.support.pairing_checks import pairing_check_specs
from rl_assets.values.handover import TraceTableRef

ASSET = LearningAudit.asset


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


def _llm_verdicts(
    context: dg.AssetExecutionContext,
    llm: LLMResource,
    config: AuditConfig,
    rows: list[dict[str, Any]],
    families: dict[str, Family],
    seed: int,
) -> str | None:
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
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"python", "markdown"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    check_specs=[
        dg.AssetCheckSpec(
            ENOUGH_TASKS,
            asset=ASSET,
            partitions_def=models_partitions,
            description=f"every task family has >= {labels.MIN_TASKS} tasks attempted by both checkpoints",
        ),
        dg.AssetCheckSpec(
            RULERS_AGREE,
            asset=ASSET,
            partitions_def=models_partitions,
            description="no family's label changes between its recorded scores and the "
            "installed reasoning-gym re-score",
        ),
        *pairing_check_specs(ASSET),
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

    result = analyse_audit(
        rows,
        title=context.partition_key,
        pairing=pairing.report,
        format_compliance=format_compliance(families),
        sources={"baseline": baseline_traces.provenance(), "post_rl": post_rl_traces.provenance()},
        predictions=predictions,
        registration=registration,
        llm_note=llm_note,
    )
    yield from emit(context.partition_key, result)
