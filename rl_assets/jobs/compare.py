"""`compare_models`: the cross-model comparison on its pinned benchmark (requested by
sensors/comparison_sensor.py after a model's analysis run ends)."""

import dagster as dg

from rl_assets.partitions import latest_materialization, metadata_of

COMPARISON_ASSET = "model_comparison"

compare_models = dg.define_asset_job(
    "compare_models",
    selection=dg.AssetSelection.assets(COMPARISON_ASSET),
    description="Every model partition's post-RL vs baseline change on one pinned benchmark.",
)


def last_pinned_benchmark(instance: dg.DagsterInstance) -> str | None:
    """The benchmark id (else name) the latest comparison was pinned to, or None if there was none."""
    latest = latest_materialization(instance, COMPARISON_ASSET)
    if latest is None:
        return None
    meta = metadata_of(latest)
    value = getattr(meta.get("benchmark_id"), "value", None) or getattr(meta.get("benchmark"), "value", None)
    return str(value) if value else None
