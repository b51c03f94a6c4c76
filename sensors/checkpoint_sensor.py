"""Checkpoint sensor: new model repos with weights become partitions and get analysed."""

import dagster as dg

from resources.hub import HubError, HubResource
from resources.registry import RegistryResource
from rl_assets.jobs.analyze import analyze_model
from rl_assets.partitions import MODELS, models_partitions
from sensors.automation import COVERS_DOWNSTREAM
from sensors.decide import LOGS_PREFIX, InspectError, decide_checkpoints, is_base_model
from sensors.instance_state import dump_cursor, last_data_version, load_cursor, watched_authors
from sensors.lineage_sensor import new_job_partitions


@dg.sensor(
    name="checkpoint_sensor",
    target=analyze_model,
    minimum_interval_seconds=10,  # an upload is analysed within seconds; a tick is one listing per author
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Polls the hub for model repos (RLDELTA_WATCH_AUTHORS, default laion) and analyses new checkpoints.",
)
def checkpoint_sensor(context: dg.SensorEvaluationContext, hub: HubResource, registry: RegistryResource):
    client, models = hub.client(), registry.client()
    listing, infos = [], {}
    try:
        for author in watched_authors():
            for info in client.list_models(author):
                listing.append((info.repo_id, info.revision))
                infos[info.repo_id] = info
    except HubError as exc:
        return dg.SkipReason(f"hub listing failed: {exc}")

    def inspect(repo_id):
        try:
            info = infos.get(repo_id)
            if info is None or not info.files:  # a listing without files: fetch this one repo only
                info = client.model_info(repo_id)
            if not info.has_weights:
                return None, "no weights file (*.safetensors, *.bin, …) yet"
            if is_base_model(models.models_by_name(repo_id)):
                return None, "a base model in the registry (no base_model_id): nothing to compare it with"
        except Exception as exc:  # one repo's hub/registry error must not sink the whole tick
            raise InspectError(f"{type(exc).__name__}: {exc}") from exc
        return info.revision_excluding(LOGS_PREFIX), ""

    decision = decide_checkpoints(
        listing, load_cursor(context), inspect, lambda repo: last_data_version(context.instance, "checkpoint", repo)
    )
    for repo_id, reason in decision.skipped:
        context.log.info(f"skipped {repo_id}: {reason}")
    known = set(context.instance.get_dynamic_partitions(MODELS))
    new = [p for p in decision.new_partitions if p not in known]
    # The RL job of each checkpoint to analyse gets its run-lineage partition (sensors/lineage_sensor.py).
    jobs = new_job_partitions(context.instance, client, infos, [repo for repo, _ in decision.runs], context.log)
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(run_key=key, partition_key=repo, tags={COVERS_DOWNSTREAM: "true"})
            for repo, key in decision.runs
        ],  # the whole analysis: nothing in it is for automation to redo (sensors/automation.py)
        dynamic_partitions_requests=([models_partitions.build_add_request(new)] if new else [])
        + ([dg.DynamicPartitionsDefinition(name="rl_jobs").build_add_request(jobs)] if jobs else []),
        cursor=dump_cursor(decision.cursor),
    )
