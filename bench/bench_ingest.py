"""Ingest benchmark: 2 x N exported JSONL rows (~95 MB each at N=2000), ingest + featurize.

    python bench/bench_ingest.py [--rows 2000] [--scales 1,4] [--dir /tmp/...]
    python bench/bench_ingest.py --compare f81a05e [--repeats 5]   # cost of the accounting

Each ingest runs in a fresh subprocess so ru_maxrss is that run's own peak RSS. Targets
(see docs/ingest.md): <= 4 s for both files at 1x on one core (>= 50 MB/s), peak RSS
<= 400 MB and flat between 1x and 4x input.

``--compare REV`` measures what this tree costs over revision REV (default: f81a05e, the last one
before the conservation ledger, discovery walk, per-row isolation and dedup) on the same 1x pair:
REV's rl_assets/resources are exported with `git archive`, and the two run alternately
(REV, this, REV, this, ...) so the shared machine's load hits both alike; medians of CPU and
wall seconds per variant and their ratio are printed. Target: <= 5 % more CPU.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = (
    "the file test error value function return import config path build output check "
    "result list module install python run data index line server request update"
).split()


def _para(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def make_file(path: Path, rows: int, seed: int) -> int:
    rng = random.Random(seed)
    with open(path, "w") as fh:
        for i in range(rows):
            conv = [{"role": "user", "content": "Solve the task. " + _para(rng, 300)}]
            for _turn in range(rng.randint(10, 40)):
                body = _para(rng, rng.randint(80, 160))
                if rng.random() < 0.3:
                    body = f"<think>{_para(rng, 60)}</think>\n" + body
                if rng.random() < 0.1:
                    body += " on second thought, let me reconsider."
                body += (
                    '\n```bash\nls -la\n```\n<tool_call>\n{"name": "bash_command", "arguments": {"keystrokes": '
                    '"ls\\n"}}\n</tool_call>'
                )
                conv.append({"role": "assistant", "content": body})
                out = "New Terminal Output:\n" + _para(rng, rng.randint(80, 200))
                if rng.random() < 0.15:
                    out += "\nTraceback (most recent call last):\nValueError: bad"
                conv.append({"role": "user", "content": out})
            row = {
                "conversations": conv,
                "agent": "terminus-2",
                "model": "m",
                "date": "2026-01-01T00:00:00Z",
                "task": f"task-{i % 400}",
                "episode": f"episode-{len(conv) // 2}",
                "trial_name": f"t{seed}-{i}",
                "result": rng.choice(["1.0", "0.0", "AgentTimeoutError"]),
                "trace_source": "main",
            }
            fh.write(json.dumps(row) + "\n")
    return path.stat().st_size


CHILD = """
import resource, sys, time
from pathlib import Path
sys.path.insert(0, {code!r})
from rl_assets.ingest import ingest_source
t0 = time.perf_counter(); rows = 0
for src in {srcs!r}:
    rows += ingest_source(src, Path(src).with_suffix('.parquet'), hub=None).rows_written
ru = resource.getrusage(resource.RUSAGE_SELF)
print(rows, time.perf_counter() - t0, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime)
"""


def run(srcs: list[str], code: Path = ROOT) -> tuple[int, float, float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(code=str(code), srcs=srcs)],
        check=True,
        capture_output=True,
        text=True,
        cwd=code,
    ).stdout.split()
    return int(out[0]), float(out[1]), float(out[2]), float(out[3])


def inputs(base: Path, rows: int, scale: int) -> tuple[list[str], int]:
    srcs, size = [], 0
    for side in (0, 1):
        p = base / f"x{scale}_{side}.jsonl"
        size += p.stat().st_size if p.exists() else make_file(p, rows * scale, seed=side)
        srcs.append(str(p))
    return srcs, size


def compare(base: Path, rows: int, rev: str, repeats: int) -> None:
    """Interleaved runs of revision ``rev`` and this tree on the same input; medians and ratio."""
    srcs, size = inputs(base, rows, 1)
    old = base / f"code-{rev}"
    if not old.is_dir():
        old.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "rl_assets", "resources"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    times: dict[str, list[tuple[float, float]]] = {rev: [], "this tree": []}
    for _ in range(repeats):
        for name, code in ((rev, old), ("this tree", ROOT)):
            n, wall, _rss, cpu = run(srcs, code)
            times[name].append((cpu, wall))
    print(f"{size / 1e6:.1f} MB in, {n} rows written per run, {repeats} interleaved runs each")
    print(f"{'variant':>10} {'CPU s (median)':>15} {'wall s (median)':>16}  CPU s of each run")
    med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in times.items()}
    for name, runs in times.items():
        print(f"{name:>10} {med[name][0]:>15.2f} {med[name][1]:>16.2f}  {', '.join(f'{c:.2f}' for c, _ in runs)}")
    print(
        f"CPU ratio this tree / {rev}: {med['this tree'][0] / med[rev][0]:.3f}; "
        f"wall ratio {med['this tree'][1] / med[rev][1]:.3f}"
    )
    ratios = [math.log(new[0] / old[0]) for old, new in zip(times[rev], times["this tree"])]  # run i of each
    rng = random.Random(0)
    boot = sorted(statistics.fmean(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    print(
        f"paired CPU ratio (geometric mean of {len(ratios)} pairs): {math.exp(statistics.fmean(ratios)):.3f} "
        f"[95% bootstrap CI {math.exp(boot[50]):.3f}, {math.exp(boot[1949]):.3f}]"
    )
    print(
        subprocess.run(
            [sys.executable, "-c", PROFILE.format(code=str(ROOT), src=srcs[0])],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
        ).stdout.strip()
    )


# The ledger's own functions under cProfile (which inflates small calls: an upper bound), as a
# share of one ingest of one file in this tree.
PROFILE = """
import cProfile, pstats, sys
from pathlib import Path
sys.path.insert(0, {code!r})
from rl_assets.ingest import ingest_source
prof = cProfile.Profile()
prof.runcall(ingest_source, {src!r}, Path({src!r}).with_suffix('.p.parquet'), hub=None)
st = pstats.Stats(prof).stats
total = max(ct for (f, _, name), (_, _, _, ct, _) in st.items() if name == 'ingest_source')
mine = ('report.py', 'dedup.py', 'walk.py', 'harbor_walk.py')
entry = {{'dedup', 'walk', '_fingerprints', 'balance', 'accounting_of', 'find', 'skip', 'merge', 'note',
          'input_read', 'input_not_read', 'input_merged', 'lost', '_data_files'}}
ledger_files = mine + ('__init__.py', 'spec.py')
acc = sum(ct for (f, _, name), (_, _, _, ct, _) in st.items() if name in entry and f.endswith(ledger_files))
print(f"profiled: ledger functions {{acc:.3f}} s of {{total:.2f}} s ingest = {{100 * acc / total:.2f}} % (upper bound)")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--scales", default="1,4")
    ap.add_argument("--dir", default=None)
    ap.add_argument("--compare", nargs="?", const="f81a05e", default=None, metavar="REV")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    base = Path(args.dir or tempfile.mkdtemp(prefix="bench_ingest_"))
    base.mkdir(parents=True, exist_ok=True)
    if args.compare:
        compare(base, args.rows, args.compare, args.repeats)
        return
    print(f"{'scale':>5} {'rows':>7} {'MB in':>8} {'wall s':>7} {'cpu s':>7} {'MB/s(cpu)':>9} {'peak RSS MB':>11}")
    for scale in (int(s) for s in args.scales.split(",")):
        srcs, size = inputs(base, args.rows, scale)
        rows, secs, rss, cpu = run(srcs)
        mb = size / 1e6  # cpu s includes interpreter start-up and imports (~0.5 s)
        print(f"{scale:>5} {rows:>7} {mb:>8.1f} {secs:>7.2f} {cpu:>7.2f} {mb / cpu:>9.1f} {rss:>11.0f}")


if __name__ == "__main__":
    main()
