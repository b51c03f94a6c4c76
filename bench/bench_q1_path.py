"""The Q1 path through `dagster asset materialize` against the original `behavioral_delta` script.

    python bench/bench_q1_path.py --original /tmp/ota [--scales 1,4] [--repeats 2] [--dir /tmp/q1b]
    RLDELTA_ORIGINAL_CHECKOUT=/tmp/ota make bench     # the same, among every benchmark

Input: ../shared/bench/perf-gen.py N before.jsonl 1 and N after.jsonl 2 (N = 2,000 × scale).
``--original`` is a checkout of the public OpenThoughts-Agent repository (kept outside this repo;
its code is never copied here) whose `scripts/analysis/behavioral_delta.py` is run as a module
from that folder with this machine's python3, without tiktoken (it then counts whitespace tokens).
rldelta runs eval_pair, baseline_traces, post_rl_traces, failure_modes, behavioral_delta for one
partition in a fresh RLDELTA_HOME each time (nothing reused), with both sources given as settings.
The two alternate (original, rldelta, original, ...) so the shared machine's load hits both alike.
Wall seconds and peak RSS (ru_maxrss of the child from wait4: its largest process) per run.
Targets (issue 15): rldelta ≤ 0.25 × the original's wall time and ≤ 400 MB peak RSS, and its peak
at 4× within 10 % of 1×.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
SELECT = "eval_pair,baseline_traces,post_rl_traces,failure_modes,behavioral_delta"
PARTITION = "bench/q1-path"


def run_measured(cmd: list[str], cwd: Path, env: dict, log_path: Path) -> tuple[float, float, int]:
    """(wall s, peak RSS MB, exit code) of one child; its output goes to log_path."""
    log = open(log_path, "w")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    log.close()
    return wall, usage.ru_maxrss / 1024, proc.returncode


def make_inputs(shared: Path, out: Path, scale: int) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    n = 2000 * scale
    pair = out / f"before_{scale}x.jsonl", out / f"after_{scale}x.jsonl"
    for path, seed in zip(pair, (1, 2)):
        if not path.exists():
            subprocess.run(
                [sys.executable, str(shared / "bench" / "perf-gen.py"), str(n), str(path), str(seed)], check=True
            )
    return pair


def original_cmd(before: Path, after: Path, out: Path) -> list[str]:
    return [
        "python3",
        "-m",
        "scripts.analysis.behavioral_delta",
        "--before",
        str(before),
        "--after",
        str(after),
        "--output",
        str(out / "report.md"),
    ]


def rldelta_run(before: Path, after: Path, work: Path) -> tuple[float, float, int]:
    """A fresh home (instance, hub, tables), the partition added, then the timed materialize."""
    home = Path(tempfile.mkdtemp(prefix="home_", dir=work))
    env = {**os.environ, "RLDELTA_HOME": str(home), "DAGSTER_HOME": str(home / "dagster")}
    setup = (
        "from rl_assets.support.instance import ensure_instance_yaml; import dagster as dg, os; "
        "ensure_instance_yaml(os.environ['DAGSTER_HOME']); "
        f"dg.DagsterInstance.get().add_dynamic_partitions('models', [{PARTITION!r}])"
    )
    subprocess.run([sys.executable, "-c", setup], env=env, cwd=ROOT, check=True)
    config = home / "run.yaml"
    config.write_text(
        f"resources:\n  settings:\n    config:\n      baseline_eval: {before}\n      post_rl_eval: {after}\n"
    )
    cmd = [
        str(VENV_BIN / "dagster"),
        "asset",
        "materialize",
        "-m",
        "rl_assets.definitions",
        "--select",
        SELECT,
        "--partition",
        PARTITION,
        "-c",
        str(config),
    ]
    measured = run_measured(cmd, ROOT, env, home / "materialize.log")
    shutil.copy(home / "materialize.log", work / "last_materialize.log")
    shutil.rmtree(home)  # its tables are as large as the input; the shared disk is small
    return measured


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--original",
        type=Path,
        default=os.environ.get("RLDELTA_ORIGINAL_CHECKOUT"),
        help="checkout holding scripts/analysis/behavioral_delta.py (default $RLDELTA_ORIGINAL_CHECKOUT)",
    )
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--scales", default="1,4")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "bench_q1_path")
    args = ap.parse_args()
    if args.original is None:  # `make bench` without the original: say what is missing, fail nothing
        print("skipped: no --original / $RLDELTA_ORIGINAL_CHECKOUT (a checkout of the public OpenThoughts-Agent repo)")
        return 0
    args.original = Path(args.original)
    if not (args.original / "scripts" / "analysis" / "behavioral_delta.py").is_file():
        sys.exit(f"{args.original}: no scripts/analysis/behavioral_delta.py (a checkout of OpenThoughts-Agent)")
    results: dict[tuple[int, str], list[tuple[float, float, int]]] = {}
    for scale in (int(s) for s in args.scales.split(",")):
        before, after = make_inputs(args.shared, args.dir, scale)
        mb = (before.stat().st_size + after.stat().st_size) / 1e6
        print(f"== {scale}x: {before.name} + {after.name} = {mb:.1f} MB", flush=True)
        for i in range(args.repeats):
            out = Path(tempfile.mkdtemp(prefix="orig_", dir=args.dir))
            for name, run in (
                (
                    "original",
                    lambda: run_measured(
                        original_cmd(before, after, out), args.original, dict(os.environ), out / "run.log"
                    ),
                ),
                ("rldelta", lambda: rldelta_run(before, after, args.dir)),
            ):
                wall, rss, rc = run()
                results.setdefault((scale, name), []).append((wall, rss, rc))
                print(f"  {scale}x #{i + 1} {name:8s} wall {wall:7.2f} s  peak RSS {rss:7.1f} MB  rc {rc}", flush=True)
    print("\n| scale | variant | runs | wall s (median) | peak RSS MB (max) | rldelta / original wall |")
    print("|---|---|---:|---:|---:|---:|")
    for (scale, name), runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        ratio = wall / statistics.median(r[0] for r in results[(scale, "original")])
        print(
            f"| {scale}x | {name} | {len(runs)} | {wall:.2f} | {max(r[1] for r in runs):.0f} | {ratio:.3f} |"
            if name == "rldelta"
            else f"| {scale}x | {name} | {len(runs)} | {wall:.2f} | {max(r[1] for r in runs):.0f} | |"
        )
    return 1 if any(r[2] for runs in results.values() for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
