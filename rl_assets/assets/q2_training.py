"""Q2 training metrics: `training_logs` (the repo's training_logs/ pinned to a Hub revision) and
`training_metrics` (per-step table in the store + report under `<reports>/<slug>/Q2_training_metrics/`)."""

from pathlib import Path

import dagster as dg

from resources.hub import HubError, HubResource
from rl_assets import store
from rl_assets.analysis.lineage.curves import curves_of
from rl_assets.analysis.lineage.steps import save_every_from_config
from rl_assets.analysis.q2.report import unrecognised_files
from rl_assets.analysis.q2.result import (
    ACCOUNTED,
    WANDB_CHECK,
    analyse_training_logs,
    no_logs_verdicts,
    unrecognised_verdict,
)
from rl_assets.ingest.formats.wandb_tables import read_validation_tables
from rl_assets.ingest.training_logs import (
    STATE_PATTERNS,
    UnrecognisedLogsError,
    is_repo_trainer_state,
    logs_folder,
    logs_revision,
    read_training_logs,
    repo_trainer_states,
)
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import check_result, dagster_metadata
from rl_assets.support.handover_types import TRAINING_LOGS
from rl_assets.support.not_applicable import not_applicable, not_applicable_metadata, not_applicable_output
from rl_assets.support.report_files import Q2_TRAINING_METRICS, write_report
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import NotApplicable, StepTableRef, TrainingLogsRef

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)

CHECK_SPECS = [
    dg.AssetCheckSpec(
        ACCOUNTED,
        asset="training_metrics",
        partitions_def=models_partitions,
        description=(
            "Every log line read is parsed into a step, counted malformed (by reason), ignored (by shape) or a "
            "merged duplicate, and every file found under training_logs/ is read or listed as not read with its "
            "reason; fails naming the file and offset when a file was read only in part or holds another "
            "trainer's logs that were not read."
        ),
    ),
    dg.AssetCheckSpec(
        WANDB_CHECK,
        asset="training_metrics",
        partitions_def=models_partitions,
        description=(
            "Every key of the final step that wandb-summary.json (or trainer_log.jsonl) shares with the parsed "
            "table has the same value there; passes as 'no independent record' when neither file exists, fails "
            "when one exists but cannot be read."
        ),
    ),
]


@dg.asset(
    partitions_def=models_partitions,
    kinds={"huggingface"},
    ins={"checkpoint": dg.AssetIn()},
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
    pool="hub",
)
def training_logs(context: dg.AssetExecutionContext, hub: HubResource, checkpoint: dict):
    """The model repo's training_logs/ pinned to a revision (a new upload = a new version)."""
    # The repo's CURRENT revision, not the one `checkpoint` read: a logs-only upload re-runs this
    # asset without re-running the checkpoint, and training_metrics then reads this revision.
    repo_id, client = checkpoint["repo_id"], hub.client()
    try:
        info = client.model_info(repo_id)
    except HubError as exc:
        raise dg.Failure(description=f"training_logs {repo_id}: hub error: {exc}") from exc
    revision = info.revision
    states = [f for f in info.files if is_repo_trainer_state(f.path)]  # HF/TRL checkpoints carry their own
    if not info.files_under("training_logs") and not states:
        out = not_applicable(
            repo_id, f"not applicable: no training_logs/ in {repo_id} (nor a trainer_state.json)", revision=revision
        )
        return dg.MaterializeResult(
            value=out,
            data_version=dg.DataVersion(f"none:{revision}"),
            metadata=not_applicable_metadata(out.reason),
        )
    logs_rev = logs_revision(info.subtree_revision("training_logs/"), [(f.path, f.sha) for f in states])
    files = [f.path for f in info.files_under("training_logs")] + [f.path for f in states]
    # What is handed over is the repo id and revision, not a folder: the Hub is already a shared,
    # revision-addressed store, and a downloaded snapshot is a cache of the machine that fetched it
    # (another worker has no such folder). training_metrics fetches the pinned revision through its
    # own hub resource, whose local cache makes a second read on the same machine free.
    ref = TrainingLogsRef(
        repo_id=repo_id,
        revision=revision,
        training_logs_revision=logs_rev,
        files=files,
        save_every=save_every_from_config(checkpoint.get("rl_config")),
    )
    return dg.MaterializeResult(
        value=ref,
        data_version=dg.DataVersion(logs_rev),
        metadata={"training_logs_revision": logs_rev, "revision": revision, "files": len(files)},
    )


def fetch_logs(hub: HubResource, training_logs: TrainingLogsRef) -> Path:
    """The pinned revision's training_logs/ and trainer_state.json files on this machine (the hub
    resource's cache); returns the snapshot root."""
    if not training_logs.revision:  # a hand-edited value; every stored one names a revision
        raise dg.Failure(
            description="training_metrics: the stored training_logs value has no Hub revision; "
            "re-materialize training_logs"
        )
    repo_id, revision = training_logs.repo_id, training_logs.revision
    try:
        folder = hub.client().download(
            repo_id, "model", allow_patterns=["training_logs/**", *STATE_PATTERNS], revision=revision
        )
    except HubError as exc:
        raise dg.Failure(
            description=f"training_metrics {repo_id}: cannot read training_logs/ at revision "
            f"{revision}: {exc}; re-materialize training_logs if the repo changed since"
        ) from exc
    return folder


def store_generations(folder: Path, model: str, run_id: str) -> str | None:
    """The W&B validation-generation tables under training_logs/ as one store table (reward_integrity
    judges them); None when the logs hold none (or the repo has only a trainer_state.json, no training_logs/)."""
    import pyarrow as pa

    if not folder.is_dir():
        return None
    frame = read_validation_tables(folder)
    if frame.empty:
        return None
    frame.attrs = {}  # the reader's ledger is not table data
    path = str(store.validation_generations_table(model, run_id))
    store.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    return path


@dg.asset(
    partitions_def=models_partitions,
    kinds={"python", "pandas"},
    ins={"training_logs": dg.AssetIn(dagster_type=TRAINING_LOGS)},
    check_specs=CHECK_SPECS,
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
    pool="hub",
)
def training_metrics(
    context: dg.AssetExecutionContext, hub: HubResource, training_logs: TrainingLogsRef | NotApplicable
):
    """Per-step training metrics from any supported trainer's logs (SkyRL, verl, TRL/HF, TensorBoard;
    rl_assets/ingest/training_logs/), with report, best checkpoint and flags."""
    import pyarrow as pa

    model = context.partition_key
    if isinstance(training_logs, NotApplicable):
        yield not_applicable_output(model, Q2_TRAINING_METRICS, training_logs)
        for verdict in no_logs_verdicts():
            yield check_result(verdict)
        return
    snapshot = fetch_logs(hub, training_logs)
    try:
        parsed = read_training_logs(logs_folder(snapshot), repo_trainer_states(snapshot))
    except UnrecognisedLogsError as exc:
        # logs are there but no reader can read them: an error, never "not applicable" (that is for no logs)
        write_report(model, Q2_TRAINING_METRICS, unrecognised_files(str(exc)))
        yield check_result(unrecognised_verdict(str(exc)))
        raise dg.Failure(description=str(exc), allow_retries=False) from exc
    result = analyse_training_logs(parsed, training_logs.save_every, training_logs.training_logs_revision)
    # The step table rl_temporal reads is the store's; the report keeps a copy for people.
    steps = parsed.steps
    steps_table = str(store.step_table(model, context.run.run_id))
    parquet = store.write_table(pa.Table.from_pandas(steps, preserve_index=False), steps_table)
    written = write_report(model, Q2_TRAINING_METRICS, {"metrics.parquet": parquet, **result.rendered.files})
    value = StepTableRef(
        steps_table=steps_table,
        trainer=parsed.trainer,
        reward_terms=parsed.reward_terms,
        n_steps=result.rep["n_steps"],
        training_logs_revision=training_logs.training_logs_revision,
        best_step=result.rep["best_checkpoint"].get("best_step"),
        curves=curves_of(steps),  # reward/entropy/KL/length per step, for the run lineage
        validation_generations=store_generations(logs_folder(snapshot), model, context.run.run_id),
    )
    metadata = {**dagster_metadata(result.metadata()), **file_metadata("report", written["report.md"])}
    yield dg.Output(value, metadata=metadata)
    for verdict in result.checks():
        yield check_result(verdict)
