"""Registry sensor: a newly Finished eval job of a known model re-resolves its eval pair."""

import dagster as dg

from resources.registry import RegistryResource
from sensors.decide import decide_fingerprints, eval_jobs_fingerprint
from sensors.instance_state import dump_cursor, load_cursor


@dg.sensor(
    name="registry_sensor",
    target=dg.AssetSelection.assets("eval_pair"),
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Re-resolves eval_pair when a known model (or its base model) gets a new Finished eval job.",
)
def registry_sensor(context: dg.SensorEvaluationContext, registry: RegistryResource):
    client = registry.client()
    current = {}
    for repo_id in context.instance.get_dynamic_partitions("models"):
        rows = client.models_by_name(repo_id)
        jobs = [j for row in rows for j in client.jobs_for_model(row["id"])]
        bases = {row.get("base_model_id") for row in rows} - {None}
        jobs += [j for base in bases for j in client.jobs_for_model(base)]
        # A model the registry does not know yet gets the empty fingerprint, so its first eval
        # jobs showing up later is a change (and re-resolves its eval pair).
        current[repo_id] = eval_jobs_fingerprint(jobs)
    cursor = load_cursor(context)
    decision = decide_fingerprints(current, cursor, cursor, "evals")
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=key, partition_key=repo) for repo, key in decision.runs],
        cursor=dump_cursor(decision.cursor),
    )
