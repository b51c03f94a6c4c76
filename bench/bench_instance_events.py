"""What one storage operation of the local Dagster instance costs: Dagster's own DagsterInstance vs
rldelta's ReusedEngineInstance (rl_assets/support/sqlite_instance.py), on the same kind of home.

    python bench/bench_instance_events.py [--ops 300] [--rounds 3]

Each round runs both classes, alternating, each in a fresh interpreter on a fresh DAGSTER_HOME
written by ensure_instance_yaml (Dagster's class: the same file without its `instance_class`
lines). A child times, after one warm-up call each, N stored log events (`handle_new_event`), N
dynamic-partition lookups (what Dagster does for each output of a partitioned asset) and N run
look-ups: CPU (user + system) and wall milliseconds per operation. A Q1 run on 12 rows stores ~90
events and does a few dozen lookups.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rl_assets.support.instance import ensure_instance_yaml  # noqa: E402

KEPT_BLOCK = "instance_class:\n  module: rl_assets.support.sqlite_instance\n  class: ReusedEngineInstance\n"

CHILD = """
import json, os, resource, sys, time
import dagster as dg
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.dagster_run import DagsterRun

home, n = sys.argv[1], int(sys.argv[2])
instance = dg.DagsterInstance.from_config(home)
instance.add_run(DagsterRun(job_name="bench", run_id="bench"))
instance.add_dynamic_partitions("models", ["org/model"])


def clocks():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, time.perf_counter()


def event(i):
    instance.handle_new_event(
        EventLogEntry(error_info=None, level=20, user_message=f"m{i}", run_id="bench", timestamp=time.time())
    )


ops = {
    "store_event": event,
    "has_dynamic_partition": lambda i: instance.has_dynamic_partition("models", "org/model"),
    "get_run_by_id": lambda i: instance.get_run_by_id("bench"),
}
out = {"class": type(instance).__name__}
for name, op in ops.items():
    op(-1)  # warm-up: the first use of each database builds what the rest reuse
    cpu0, wall0 = clocks()
    for i in range(n):
        op(i)
    cpu1, wall1 = clocks()
    out[name] = [(cpu1 - cpu0) / n * 1000, (wall1 - wall0) / n * 1000]
print(json.dumps(out))
"""


def one(kept: bool, ops: int, work: Path) -> dict:
    home = Path(tempfile.mkdtemp(prefix="home_", dir=work))
    path = ensure_instance_yaml(home)
    if not kept:
        text = path.read_text()
        assert KEPT_BLOCK in text, "dagster.yaml no longer names ReusedEngineInstance as this bench expects"
        path.write_text(text.replace(KEPT_BLOCK, ""))
    env = dict(os.environ, DAGSTER_HOME=str(home), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), str(ops)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    results: dict[str, list[dict]] = {"DagsterInstance": [], "ReusedEngineInstance": []}
    with tempfile.TemporaryDirectory(prefix="bench_instance_") as work:
        for r in range(args.rounds):
            for kept in (False, True):
                got = one(kept, args.ops, Path(work))
                results[got["class"]].append(got)
                print(
                    f"round {r + 1} {got['class']:22s} "
                    + "  ".join(f"{k} {v[0]:.2f}/{v[1]:.2f} ms" for k, v in got.items() if k != "class"),
                    flush=True,
                )
    print("\n| operation | DagsterInstance CPU / wall ms (median) | ReusedEngineInstance CPU / wall ms | CPU ratio |")
    print("|---|---:|---:|---:|")
    for op in ("store_event", "has_dynamic_partition", "get_run_by_id"):
        med = {cls: [statistics.median(run[op][i] for run in runs) for i in (0, 1)] for cls, runs in results.items()}
        plain, kept = med["DagsterInstance"], med["ReusedEngineInstance"]
        print(f"| {op} | {plain[0]:.2f} / {plain[1]:.2f} | {kept[0]:.2f} / {kept[1]:.2f} | {kept[0] / plain[0]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
