"""Training-logs sensor: a new training_logs/ upload of a known model re-runs Q2 (and dependents).

In ONE run: training_logs, every per-model asset below it and INDEX.md last. Left to eager
automation, each layer below became a run of its own after the one above finished, and each run
ended with an INDEX.md rewrite: 7-8 runs and 3-4 rewrites over minutes, the first still showing the
old Q2. The run is tagged COVERS_DOWNSTREAM, so automation does not trigger on its updates (not
even from a tick that falls inside it: sensors/automation.py), the index sensor skips it (it wrote
INDEX.md itself), and the lineage refresh after it rewrites no INDEX.md when the lineage's members
stayed the same (sensors/lineage_sensor.py). tests/sensors/test_sensors_daemon_upload.py counts it
all under the real daemon.
"""

import dagster as dg

from resources.hub import HubError, HubResource
from rl_assets.assets import ANALYSIS_GROUPS
from rl_assets.partitions import MODELS
from sensors.automation import COVERS_DOWNSTREAM
from sensors.decide import LOGS_PREFIX, decide_fingerprints
from sensors.instance_state import dump_cursor, last_data_version, load_cursor

# The per-model assets (the analysis groups: one partitions definition) that read the logs, INDEX.md included.
LOGS_RERUN = dg.AssetSelection.assets("training_logs").downstream() & dg.AssetSelection.groups(*ANALYSIS_GROUPS)


@dg.sensor(
    name="training_logs_sensor",
    target=LOGS_RERUN,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description=(
        "Detects a new training_logs/ revision of a known model and re-runs training_logs, what depends on it "
        "and INDEX.md, in one run."
    ),
)
def training_logs_sensor(context: dg.SensorEvaluationContext, hub: HubResource):
    client = hub.client()
    current, materialized = {}, {}
    for repo_id in context.instance.get_dynamic_partitions(MODELS):
        try:
            current[repo_id] = client.model_info(repo_id).subtree_revision(LOGS_PREFIX)
        except HubError as exc:
            context.log.info(f"skipped {repo_id}: {exc}")
            continue
        materialized[repo_id] = last_data_version(context.instance, "training_logs", repo_id)
    decision = decide_fingerprints(current, load_cursor(context), materialized, "logs")
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(run_key=key, partition_key=repo, tags={COVERS_DOWNSTREAM: "true"})
            for repo, key in decision.runs
        ],  # the logs and all below them: nothing in it is for automation to redo (sensors/automation.py)
        cursor=dump_cursor(decision.cursor),
    )
