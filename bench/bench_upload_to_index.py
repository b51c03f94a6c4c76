"""Upload → finished INDEX.md under the daemon, on a fresh demo instance (target ≤ 30 s).

    python bench/bench_upload_to_index.py [--dir /tmp/...] [--timeout 600]

Builds the demo world in a fresh home (no analysis), starts `dagster-daemon run -w workspace.yaml`
(it starts the code server itself) with the sensors watching only the org `rldelta-bench`, waits
for the checkpoint sensor's first evaluation, then "uploads": copies the demo checkpoint
`rldelta-demo/rl-alpha-20-8B` to `rldelta-bench/rl-alpha-20-8B` in the local hub and copies its
registry rows (model + eval jobs) under the new name. The clock runs from the end of that copy
until the model's INDEX.md exists; the runs the daemon launched for it are listed with their
own start/end times, so sensor waits and run times can be told apart. The daemon is stopped
(SIGTERM to its process group, then SIGKILL) whatever happens.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SOURCE, TARGET = "rldelta-demo/rl-alpha-20-8B", "rldelta-bench/rl-alpha-20-8B"


def copy_registry_rows(db: Path, source: str, target: str) -> int:
    """The source model's row and its eval jobs again, under the target's name and new ids."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    model = con.execute("SELECT * FROM models WHERE name = ?", (source,)).fetchone()
    new_id = str(uuid.uuid5(uuid.NAMESPACE_URL, target))
    row = {**dict(model), "id": new_id, "name": target}
    con.execute(f"INSERT INTO models ({','.join(row)}) VALUES ({','.join('?' * len(row))})", list(row.values()))
    jobs = con.execute("SELECT * FROM sandbox_jobs WHERE model_id = ?", (model["id"],)).fetchall()
    for job in jobs:
        row = {**dict(job), "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{target}/{job['id']}")), "model_id": new_id}
        con.execute(
            f"INSERT INTO sandbox_jobs ({','.join(row)}) VALUES ({','.join('?' * len(row))})", list(row.values())
        )
    con.commit()
    con.close()
    return len(jobs)


def wait_for(predicate, timeout: float, step: float = 0.25) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def runs_of(partition: str, t0: float) -> list[str]:
    """Each run for the partition: seconds after the upload it was created, started (its worker had
    loaded the code) and ended, so sensor wait, launch and run time read off directly."""
    import dagster as dg

    lines = []
    with dg.DagsterInstance.get() as instance:
        records = instance.get_run_records(dg.RunsFilter(tags={"dagster/partition": partition}))
        for r in sorted(records, key=lambda r: r.create_timestamp):
            created, start, end = r.create_timestamp.timestamp() - t0, r.start_time, r.end_time
            start, end = (start - t0) if start else float("nan"), (end - t0) if end else float("nan")
            lines.append(
                f"{r.dagster_run.job_name:16s} {r.dagster_run.status.value:8s} created +{created:.1f} s, "
                f"started +{start:.1f} s, ended +{end:.1f} s (launch {start - created:.1f} s, run {end - start:.1f} s)"
            )
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench_upload_", dir=args.dir))
    os.environ.update(RLDELTA_HOME=str(home), DAGSTER_HOME=str(home / "dagster"), RLDELTA_WATCH_AUTHORS="rldelta-bench")
    subprocess.run([str(BIN / "rldelta"), "demo"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        [sys.executable, "-m", "rl_assets.support.instance", os.environ["DAGSTER_HOME"]],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    log_path = home / "daemon.log"
    log = open(log_path, "w")
    daemon = subprocess.Popen(
        [str(BIN / "dagster-daemon"), "run", "-w", "workspace.yaml"],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        up = wait_for(lambda: "checkpoint_sensor" in log_path.read_text(), 180)
        if not up:
            print(f"the daemon never evaluated checkpoint_sensor; see {log_path}")
            return 1
        time.sleep(1)
        hub = home / "hub" / "models"
        shutil.copytree(hub / SOURCE, hub / TARGET)
        jobs = copy_registry_rows(home / "registry.sqlite", SOURCE, TARGET)
        t0 = time.time()
        from rl_assets.store import report_dir

        index = report_dir(TARGET) / "INDEX.md"
        done = wait_for(index.exists, args.timeout, 0.2)
        elapsed = time.time() - t0
        print(
            f"upload at {t0:.1f} ({jobs} eval jobs copied); INDEX.md {'at' if done else 'NOT written within'} "
            f"{elapsed:.1f} s" + ("" if done else f" (timeout {args.timeout:.0f} s)")
        )
        for line in runs_of(TARGET, t0):
            print("  run", line)
        return 0 if done else 1
    finally:
        os.killpg(daemon.pid, signal.SIGTERM)
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait()
        log.close()
        print(f"daemon stopped; home {home} (log {log_path})")


if __name__ == "__main__":
    sys.exit(main())
