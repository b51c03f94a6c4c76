"""Small reads of the Dagster instance that sensors need (what was last materialized, with which version)."""

import json

import dagster as dg

from rl_assets.partitions import data_version, latest_materialization


def last_data_version(instance: dg.DagsterInstance, asset: str, partition: str) -> str | None:
    """The data version of the latest materialization of one asset partition (None if never)."""
    return data_version(latest_materialization(instance, asset, partition))


def load_cursor(context) -> dict:
    return json.loads(context.cursor) if context.cursor else {}


def dump_cursor(cursor: dict) -> str:
    return json.dumps(cursor, sort_keys=True, separators=(",", ":"))


def watched_authors() -> list[str]:
    """Hub authors the checkpoint sensor polls: RLDELTA_WATCH_AUTHORS (comma list), default laion."""
    import os

    value = os.environ.get("RLDELTA_WATCH_AUTHORS", "laion")
    return [a.strip() for a in value.split(",") if a.strip()]
