"""The Q1 path through `dagster asset materialize` against the original `behavioral_delta` script.

    python bench/bench_q1_path.py --original /tmp/ota [--scales 1,4] [--repeats 2] [--dir /tmp/q1b]
        [--before-tree /tmp/base] [--fixed-cost-rows 12 [--floor]]
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
at 4× within 10 % of 1×. Issue 37: ≤ 0.15× at 1×, ≤ 0.10× at 4×, ≤ 350 MB at 4×, and the fixed cost
(the same run on 12 rows a side, `--fixed-cost-rows 12`) ≤ 2.5 s on a quiet machine.

``--before-tree`` is another checkout of rldelta (e.g. `git archive <commit>` unpacked) run the same
way with this venv, alternating with this tree (original, before, this tree, ...), so before/after
figures share the machine's load. The children keep bytecode (PYTHONDONTWRITEBYTECODE is dropped
from their environment), as in a user's checkout after its first run. ``--floor`` adds, to the
12-row round two runs through the same CLI of assets that do nothing (bench/noop_definitions.py): one
asset, and the Q1 path's shape (five assets, eleven checks, one partition): Dagster's own share.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
SELECT = "eval_pair,baseline_traces,post_rl_traces,failure_modes,behavioral_delta"  # asset keys: any tree
PARTITION = "bench/q1-path"


def run_measured(cmd: list[str], cwd: Path, env: dict, log_path: Path) -> tuple[float, float, int, float, float]:
    """(wall s, peak RSS MB, exit code, CPU s, peak PSS MB of all its processes) of one child; its
    output goes to log_path. CPU (user + system, from wait4, children included) is printed beside
    the wall time: on the shared machine the load inflates the wall time, much less the CPU time.
    Peak RSS (wait4's ru_maxrss) is that of the largest single process; since rldelta ingests the
    eval pair's two sides in two processes at once, the sum of the tree's PSS (shared pages counted
    once) is sampled every 50 ms as well: what the run takes from the machine."""
    log = open(log_path, "w")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    sampler = PssSampler(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    peak_pss = sampler.stop()
    proc.returncode = os.waitstatus_to_exitcode(status)
    log.close()
    return wall, usage.ru_maxrss / 1024, proc.returncode, usage.ru_utime + usage.ru_stime, peak_pss


class PssSampler:
    """The largest sum of PSS over a process and its descendants, read from /proc every 50 ms
    (Linux; 0 elsewhere). A spike shorter than 50 ms can be missed: ru_maxrss has no such gap."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_kb, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak_kb = max(self.peak_kb, sum(_pss_kb(p) for p in _tree(self.pid)))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024


def _tree(pid: int) -> list[int]:
    pids = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                for child in fh.read().split():
                    pids += _tree(int(child))
    except OSError:  # gone, or not Linux
        pass
    return pids


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def make_inputs(shared: Path, out: Path, scale: int, rows: int | None = None) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    n = rows or 2000 * scale
    tag = f"{rows}rows" if rows else f"{scale}x"
    pair = out / f"before_{tag}.jsonl", out / f"after_{tag}.jsonl"
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


def _fresh_instance(work: Path, tree: Path) -> tuple[Path, dict]:
    """A fresh home whose dagster.yaml is written by the code in `tree` (this checkout unless another
    is given), with the bench's partition added, and the environment that points at it."""
    home = Path(tempfile.mkdtemp(prefix="home_", dir=work))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(RLDELTA_HOME=str(home), DAGSTER_HOME=str(home / "dagster"))
    if tree != ROOT:
        env["PYTHONPATH"] = str(tree)  # the venv's editable install points elsewhere
    setup = (
        "from rl_assets.support.instance import ensure_instance_yaml; import dagster as dg, os; "
        "ensure_instance_yaml(os.environ['DAGSTER_HOME']); "
        f"dg.DagsterInstance.get().add_dynamic_partitions('models', [{PARTITION!r}])"
    )
    subprocess.run([sys.executable, "-c", setup], env=env, cwd=tree, check=True)
    return home, env


def rldelta_run(before: Path, after: Path, work: Path, tree: Path = ROOT) -> tuple[float, float, int, float, float]:
    """A fresh home (instance, hub, tables), the partition added, then the timed materialize of the
    code in `tree` (this checkout unless another is given)."""
    home, env = _fresh_instance(work, tree)
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
    measured = run_measured(cmd, tree, env, home / "materialize.log")
    shutil.copy(home / "materialize.log", work / "last_materialize.log")
    shutil.rmtree(home)  # its tables are as large as the input; the shared disk is small
    return measured


def floor_run(work: Path, tree: Path = ROOT, q1_shape: bool = False) -> tuple[float, float, int, float, float]:
    """Assets that do nothing (bench/noop_definitions.py) through the same CLI on a fresh instance set
    up like rldelta_run's by the code in `tree` (its dagster.yaml): one asset (what any run pays
    before rldelta's code does anything), or with `q1_shape` the Q1 path's five assets, steps,
    hand-overs and eleven checks on the same partition (what Dagster's machinery costs for that run)."""
    home, env = _fresh_instance(work, tree)
    select = ["--select", SELECT, "--partition", PARTITION] if q1_shape else ["--select", "noop"]
    cmd = [str(VENV_BIN / "dagster"), "asset", "materialize", "-m", "noop_definitions", *select]
    measured = run_measured(cmd, ROOT / "bench", env, home / "materialize.log")
    shutil.rmtree(home)
    return measured


def _named(variant: str, tree_name: str, trees: list) -> str:
    return f"{variant} {tree_name}" if len(trees) > 1 else variant


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
    ap.add_argument("--before-tree", type=Path, help="another rldelta checkout to alternate with this one")
    ap.add_argument(
        "--floor", action="store_true", help="add no-op runs (one asset; the Q1 path's shape) to the fixed-cost round"
    )
    ap.add_argument(
        "--fixed-cost-rows", type=int, default=0, help="first time rldelta alone on this many rows a side (e.g. 12)"
    )
    args = ap.parse_args()
    if args.original is None:  # `make bench` without the original: say what is missing, fail nothing
        print("skipped: no --original / $RLDELTA_ORIGINAL_CHECKOUT (a checkout of the public OpenThoughts-Agent repo)")
        return 0
    args.original = Path(args.original)
    if not (args.original / "scripts" / "analysis" / "behavioral_delta.py").is_file():
        sys.exit(f"{args.original}: no scripts/analysis/behavioral_delta.py (a checkout of OpenThoughts-Agent)")
    trees = [("rldelta", ROOT)]
    if args.before_tree:
        trees.insert(0, ("before", args.before_tree.resolve()))
    results: dict[tuple[str, str], list[tuple[float, float, int, float, float]]] = {}
    rounds = []
    if args.fixed_cost_rows:
        rounds.append(
            (f"{args.fixed_cost_rows} rows", make_inputs(args.shared, args.dir, 0, args.fixed_cost_rows), False)
        )
    for scale in (int(s) for s in args.scales.split(",") if s):
        rounds.append((f"{scale}x", make_inputs(args.shared, args.dir, scale), True))
    for label, (before, after), with_original in rounds:
        mb = (before.stat().st_size + after.stat().st_size) / 1e6
        print(f"== {label}: {before.name} + {after.name} = {mb:.1f} MB", flush=True)
        for i in range(args.repeats):
            out = Path(tempfile.mkdtemp(prefix="orig_", dir=args.dir))
            runs = [(name, lambda tree=tree: rldelta_run(before, after, args.dir, tree)) for name, tree in trees]
            if args.floor and not with_original:  # the no-ops on each tree's instance, before its run
                runs = [
                    run
                    for (name, tree), rl in zip(trees, runs)
                    for run in (
                        (_named("no-op", name, trees), lambda tree=tree: floor_run(args.dir, tree)),
                        (_named("Q1-shaped no-op", name, trees), lambda tree=tree: floor_run(args.dir, tree, True)),
                        rl,
                    )
                ]
            if with_original:
                original = original_cmd(before, after, out)
                runs.insert(
                    0, ("original", lambda: run_measured(original, args.original, dict(os.environ), out / "run.log"))
                )
            for name, run in runs:
                wall, rss, rc, cpu, pss = run()
                results.setdefault((label, name), []).append((wall, rss, rc, cpu, pss))
                print(
                    f"  {label} #{i + 1} {name:8s} wall {wall:7.2f} s CPU {cpu:6.2f} s peak RSS {rss:6.1f} MB"
                    f" (all processes: PSS {pss:6.1f} MB) rc {rc}",
                    flush=True,
                )
    print(
        "\n| input | variant | runs | wall s (each) | wall s (median) | CPU s (median) | peak RSS MB, largest process"
        " | peak PSS MB, all processes | / original |"
    )
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for (label, name), runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        originals = results.get((label, "original"))
        ratio = f"{wall / statistics.median(r[0] for r in originals):.3f}" if originals and name != "original" else ""
        each = ", ".join(f"{r[0]:.2f}" for r in runs)
        cpu = statistics.median(r[3] for r in runs)
        rss = max(r[1] for r in runs)
        pss = max(r[4] for r in runs)
        print(f"| {label} | {name} | {len(runs)} | {each} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {pss:.0f} | {ratio} |")
    return 1 if any(r[2] for runs in results.values() for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
