"""Checkpoint-sensor tick over a listing of 10,000 repos with 10 changed (target <= 2 s).

Runs the real sensor function (Dagster evaluation context, instance lookups for the changed
repos, SensorResult with partitions and run requests) against a hub whose listing is what the
Hub API returns: repo id + sha per repo, files fetched only for repos that changed.
    python bench/bench_sensor.py
"""

import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg  # noqa: E402

from resources.hub import HubResource, RepoFile, RepoInfo  # noqa: E402
from resources.registry import RegistryResource  # noqa: E402

N_REPOS, N_CHANGED = 10_000, 10
NOW = datetime(2026, 12, 1, tzinfo=UTC)


class ListingHub:
    """A hub whose list_models is a cheap listing (no files), like the Hub API's."""

    def __init__(self, revs):
        self.revs, self.fetched = revs, 0

    def list_models(self, author=None):
        return [RepoInfo(r, "model", rev, NOW, []) for r, rev in self.revs.items()]

    def model_info(self, repo_id, revision=None):
        self.fetched += 1
        files = [RepoFile("model.safetensors", 10, self.revs[repo_id]), RepoFile("training_logs/a.out", 5, "l")]
        return RepoInfo(repo_id, "model", self.revs[repo_id], NOW, files)


def main():
    os.environ.setdefault("RLDELTA_WATCH_AUTHORS", "laion")
    from sensors.checkpoint_sensor import checkpoint_sensor

    revs = {f"laion/model-{i:05d}-8B": f"rev{i}" for i in range(N_REPOS)}
    cursor = {repo: f"{rev}|fp" for repo, rev in revs.items()}
    for i in range(N_CHANGED):
        revs[f"laion/model-{i:05d}-8B"] = f"rev{i}-new"
    hub = ListingHub(revs)

    class Resource(HubResource):
        def client(self):
            return hub

    with tempfile.TemporaryDirectory() as tmp, dg.DagsterInstance.ephemeral(tempdir=tmp) as instance:
        ctx = dg.build_sensor_context(
            instance=instance, cursor=json.dumps(cursor), resources={"hub": Resource(), "registry": RegistryResource()}
        )
        start = time.perf_counter()
        result = checkpoint_sensor(ctx)
        elapsed = time.perf_counter() - start
    print(f"repos listed: {N_REPOS}, changed: {N_CHANGED}, repos fetched: {hub.fetched}")
    print(
        f"run requests: {len(result.run_requests)}, new partitions: "
        f"{len(result.dynamic_partitions_requests[0].partition_keys) if result.dynamic_partitions_requests else 0}"
    )
    print(f"tick time: {elapsed:.3f} s (target <= 2 s)")


if __name__ == "__main__":
    main()
