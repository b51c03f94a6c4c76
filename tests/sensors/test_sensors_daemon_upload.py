"""A logs-only upload under the real daemon (`dagster dev`, as `make ui` starts it): one run of the model
(training_logs, what reads it, INDEX.md last), one refresh of its RL job's run lineage, one INDEX.md
write, and nothing else. tests/sensors/test_sensors_logs_upload.py checks the same with the sensor
functions; this one lets the daemon's own ticks (sensors, run-status sensors, declarative automation)
decide, and counts what they launched until every sensor has looked at the final state.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import dagster as dg
import pytest

from rl_assets.definitions import defs
from rl_assets.partitions import slug
from sensors.automation import COVERS_DOWNSTREAM
from support.daemon_world import ALPHA, JOB, runs_after, wait_until_quiet
from support.ui_pages import running_ui
from support.webserver import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(900)  # one demo analysis, then dagster dev on a busy 2-core machine
SENSORS = {s.name for s in defs.sensors}  # every one is on by default; each must have seen the end state
QUIET_SECONDS = 400  # the upload's runs, then one more tick of every sensor (the slowest ticks every 30 s)


def _index_writes(instance: dg.DagsterInstance, after: float) -> list[str]:
    """Run ids of the INDEX.md writes (`analysis_index` materializations) of ALPHA after `after`."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("analysis_index"), asset_partitions=[ALPHA]), limit=50
    ).records
    return [r.run_id for r in records if r.timestamp > after]


class FileWrites(threading.Thread):
    """The distinct modification times a file takes while watched (polled every 0.1 s): a second witness
    of INDEX.md writes beside the event log's materializations."""

    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.path, self.seen, self.stop = path, [], threading.Event()
        self.first = path.stat().st_mtime_ns

    def run(self):
        while not self.stop.wait(0.1):
            mtime = self.path.stat().st_mtime_ns if self.path.exists() else None
            if mtime != (self.seen[-1] if self.seen else self.first):
                self.seen.append(mtime)


@pytest.fixture(scope="module")
def daemon_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("daemon-upload")
    env = {
        **os.environ,
        "RLDELTA_HOME": str(home),
        "DAGSTER_HOME": str(home / "dagster"),
        "RLDELTA_WATCH_AUTHORS": ALPHA.split("/")[0],  # as `make ui` watches the demo org
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    }
    setup = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "support" / "daemon_world.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-3000:]
    port = free_port()
    started = time.time()
    with running_ui(env, port, ROOT), dg.DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        yield home, instance, started


def _summary(records) -> list[tuple]:
    return [
        (r.dagster_run.job_name, r.dagster_run.tags.get("dagster/partition"), r.dagster_run.status.value)
        for r in records
    ]


def test_a_logs_only_upload_is_one_run_and_one_index_write_under_the_daemon(daemon_home):
    home, instance, started = daemon_home
    # the daemon's first look at the analysed demo: every sensor ticks, nothing is launched
    assert wait_until_quiet(instance, time.time(), SENSORS, QUIET_SECONDS), "the daemon never settled before the upload"
    assert runs_after(instance, started) == [], _summary(runs_after(instance, started))

    logs = home / "hub" / "models" / ALPHA / "training_logs"
    first = sorted(p for p in logs.iterdir() if p.is_file())[0]
    index = FileWrites(home / "reports" / slug(ALPHA) / "INDEX.md")  # RLDELTA_REPORTS unset: the home's
    index.start()
    t0 = time.time()
    shutil.copy(first, logs / f"late_{first.name}")  # the upload: one more log file of the same run
    settled = wait_until_quiet(instance, t0, SENSORS, QUIET_SECONDS)
    index.stop.set()
    runs = runs_after(instance, t0)
    summary = _summary(runs)
    assert settled, f"still busy {QUIET_SECONDS} s after the upload: {summary}"

    # one run of the model, one refresh of its job's lineage (its members unchanged: no INDEX.md after it)
    assert [(job, partition) for job, partition, _ in summary] == [
        ("__anonymous_asset_job_training_logs_sensor", ALPHA),
        ("refresh_lineage", JOB),
    ], summary
    assert all(status == "SUCCESS" for *_, status in summary), summary
    run = runs[0].dagster_run
    assert run.tags.get(COVERS_DOWNSTREAM) == "true"
    materialized = [
        e.dagster_event.asset_key.to_user_string()
        for e in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
    ]
    assert materialized[0] == "training_logs" and materialized[-1] == "analysis_index", materialized
    assert {"training_metrics", "rl_temporal", "reward_integrity"} <= set(materialized), materialized
    assert _index_writes(instance, t0) == [run.run_id], summary  # INDEX.md once, as that run's last step
    assert len(index.seen) == 1, index.seen  # and the file changed once
