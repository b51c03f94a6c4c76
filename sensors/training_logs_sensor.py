"""Training-logs sensor: a new training_logs/ upload of a known model re-runs Q2 (and dependents)."""

import dagster as dg

from resources.hub import HubError, HubResource
from rl_assets.partitions import models_partitions
from sensors.decide import LOGS_PREFIX, decide_fingerprints
from sensors.instance_state import dump_cursor, last_data_version, load_cursor


@dg.sensor(
    name="training_logs_sensor",
    target=dg.AssetSelection.assets("training_logs"),
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Detects a new training_logs/ revision of a known model and re-materializes training_logs; automation refreshes what depends on it.",
)
def training_logs_sensor(context: dg.SensorEvaluationContext, hub: HubResource):
    client = hub.client()
    current, materialized = {}, {}
    for repo_id in context.instance.get_dynamic_partitions(models_partitions.name):
        try:
            current[repo_id] = client.model_info(repo_id).subtree_revision(LOGS_PREFIX)
        except HubError as exc:
            context.log.info(f"skipped {repo_id}: {exc}")
            continue
        materialized[repo_id] = last_data_version(context.instance, "training_logs", repo_id)
    decision = decide_fingerprints(current, load_cursor(context), materialized, "logs")
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=key, partition_key=repo) for repo, key in decision.runs],
        cursor=dump_cursor(decision.cursor),
    )
