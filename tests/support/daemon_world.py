"""A home where one demo checkpoint is already analysed, for tests that then run the real daemon on it.

    python tests/support/daemon_world.py   (RLDELTA_HOME and DAGSTER_HOME set)

Builds the demo world, keeps in the hub only the checkpoint `ALPHA`, its base model and the repo
still uploading (the checkpoint sensor, watching the demo org, then has nothing new to analyse), and
analyses `ALPHA` and its RL job's run lineage in this process on DAGSTER_HOME's instance, the way
`rldelta demo --run` does for every demo model. A separate process: the settings and the instance
are read from the environment once per process.

Also what such tests read off the instance while the daemon works (`quiet_since`, `runs_after`).
"""

from __future__ import annotations

import os
import shutil
import time
from datetime import UTC
from pathlib import Path

import dagster as dg

from rl_assets.demo.constants import ALPHA, BASE, JOB_NAMES, UPLOADING

JOB = JOB_NAMES[ALPHA]
ACTIVE = (
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
)


def build(home: Path) -> None:
    from rl_assets.cli.demo_runs import run_analysis, run_lineage
    from rl_assets.demo import build_world
    from rl_assets.support.instance import ensure_instance_yaml

    build_world(home, scale=0.3)
    org = home / "hub" / "models" / ALPHA.split("/")[0]
    for repo in org.iterdir():
        if f"{org.name}/{repo.name}" not in (ALPHA, BASE, UPLOADING):
            shutil.rmtree(repo)
    ensure_instance_yaml(os.environ["DAGSTER_HOME"])
    with dg.DagsterInstance.get() as instance:
        instance.add_dynamic_partitions("models", [ALPHA])
        assert run_analysis(instance, ALPHA).success
        assert run_lineage(instance, JOB, [ALPHA]).success


def runs_after(instance: dg.DagsterInstance, t0: float) -> list[dg.RunRecord]:
    """Every run created after `t0` (a timestamp), oldest first."""
    records = instance.get_run_records(dg.RunsFilter(created_after=_utc(t0)))
    return sorted(records, key=lambda r: r.create_timestamp)


def _utc(t: float):
    from datetime import datetime

    return datetime.fromtimestamp(t, tz=UTC)


def quiet_since(instance: dg.DagsterInstance, t0: float, sensors: set[str]) -> bool:
    """No run is queued or running, and each of `sensors` has finished a tick that began after every
    run's end (and after `t0`): the daemon has looked at the latest state and asked for nothing."""
    from dagster._core.scheduler.instigation import InstigatorType, TickStatus

    if instance.get_runs_count(dg.RunsFilter(statuses=list(ACTIVE))):
        return False
    ends = [r.end_time or 0.0 for r in runs_after(instance, t0)]
    settled = max([t0, *ends])
    ticked = set()
    for state in instance.all_instigator_state(instigator_type=InstigatorType.SENSOR):
        ticks = instance.get_ticks(state.instigator_origin_id, state.selector_id, after=settled, limit=5)
        if any(t.status != TickStatus.STARTED for t in ticks):
            ticked.add(state.instigator_name)
    return sensors <= ticked


def wait_until_quiet(instance: dg.DagsterInstance, t0: float, sensors: set[str], seconds: float) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if quiet_since(instance, t0, sensors):
            return True
        time.sleep(1)
    return False


if __name__ == "__main__":
    build(Path(os.environ["RLDELTA_HOME"]))
