"""Where a resource's secret comes from when its config does not set it: the environment.

A run config that sets any field of a resource (say only `timeout_s` of `llm`) makes Dagster build
the resource from that config alone, so a key the definitions passed as an EnvVar is gone. Each
resource therefore reads its secret as `field or the environment`, at use time: run config merges
with the environment's secrets and never replaces them (and a key set in config still wins).
"""

from __future__ import annotations

import os


def env_secret(configured: str | None, *names: str) -> str | None:
    """`configured` when set, else the first of the environment variables `names` that is set."""
    if configured:
        return configured
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None
