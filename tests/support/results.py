"""What an in-process run materialized, by asset key (the eval pair's two trace tables are one
multi-asset step, `eval_traces`, so "materializations of a node" no longer names one asset)."""

import dagster as dg


def materialized(result, asset: str) -> list[dg.AssetMaterialization]:
    """The AssetMaterializations `result` (dg.materialize's) recorded for `asset`, in order."""
    key = dg.AssetKey(asset)
    return [e.materialization for e in result.get_asset_materialization_events() if e.materialization.asset_key == key]
