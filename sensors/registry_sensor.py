"""Registry sensor: a newly Finished eval job of a known model re-resolves its eval pair."""

import dagster as dg

from resources.registry import RegistryResource
from rl_assets.partitions import MODELS, latest_materialization
from sensors.decide import decide_fingerprints, eval_jobs_fingerprint
from sensors.instance_state import dump_cursor, load_cursor

NO_JOBS = eval_jobs_fingerprint([])
EVAL_PAIR = dg.AssetKey("eval_pair")


def _unresolved(instance: dg.DagsterInstance, repo: str) -> bool:
    """eval_pair was attempted for this model, the attempt has ended, and it never materialized."""
    planned = instance.get_latest_planned_materialization_info(EVAL_PAIR, repo)
    if planned is None:
        return False  # never attempted: the checkpoint sensor's first run will
    run = instance.get_run_by_id(planned.run_id)
    if run is None or not run.is_finished:
        return False
    return latest_materialization(instance, EVAL_PAIR, repo) is None


@dg.sensor(
    name="registry_sensor",
    target=dg.AssetSelection.assets("eval_pair"),
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Re-resolves eval_pair when a known model (or its base model) gets a new Finished eval job.",
)
def registry_sensor(context: dg.SensorEvaluationContext, registry: RegistryResource):
    client = registry.client()
    current: dict[str, str] = {}
    for repo_id in context.instance.get_dynamic_partitions(MODELS):
        rows = client.models_by_name(repo_id)
        jobs = [j for row in rows for j in client.jobs_for_model(row["id"])]
        bases = {base for row in rows if (base := row.get("base_model_id")) is not None}
        jobs += [j for base in bases for j in client.jobs_for_model(base)]
        # A model the registry does not know yet gets the empty fingerprint, so its first eval
        # jobs showing up later is a change (and re-resolves its eval pair).
        current[repo_id] = eval_jobs_fingerprint(jobs)
    cursor = load_cursor(context)
    decision = decide_fingerprints(current, cursor, cursor, "evals")
    requested = {repo for repo, _ in decision.runs}
    for repo, fingerprint in current.items():
        # A checkpoint uploaded before its evals were registered failed at eval_pair. If the evals
        # appeared before this sensor first saw the model, the cursor holds no "before" to compare
        # with; recover anyway. The run key (per fingerprint) keeps it to one attempt per change.
        if repo not in requested and fingerprint != NO_JOBS and _unresolved(context.instance, repo):
            decision.runs.append((repo, f"{repo}@evals:{fingerprint[:12]}"))
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=key, partition_key=repo) for repo, key in decision.runs],
        cursor=dump_cursor(decision.cursor),
    )
