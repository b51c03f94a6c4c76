"""Ingest benchmark: 2 x N exported JSONL rows (~95 MB each at N=2000), ingest + featurize.

    python bench/bench_ingest.py [--rows 2000] [--scales 1,4] [--dir /tmp/...]

Each ingest runs in a fresh subprocess so ru_maxrss is that run's own peak RSS. Targets
(see docs/ingest.md): <= 4 s for both files at 1x on one core (>= 50 MB/s), peak RSS
<= 400 MB and flat between 1x and 4x input.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("the file test error value function return import config path build output check "
         "result list module install python run data index line server request update").split()


def _para(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def make_file(path: Path, rows: int, seed: int) -> int:
    rng = random.Random(seed)
    with open(path, "w") as fh:
        for i in range(rows):
            conv = [{"role": "user", "content": "Solve the task. " + _para(rng, 300)}]
            for t in range(rng.randint(10, 40)):
                body = _para(rng, rng.randint(80, 160))
                if rng.random() < 0.3:
                    body = f"<think>{_para(rng, 60)}</think>\n" + body
                if rng.random() < 0.1:
                    body += " on second thought, let me reconsider."
                body += '\n```bash\nls -la\n```\n<tool_call>\n{"name": "bash_command", "arguments": {"keystrokes": "ls\\n"}}\n</tool_call>'
                conv.append({"role": "assistant", "content": body})
                out = "New Terminal Output:\n" + _para(rng, rng.randint(80, 200))
                if rng.random() < 0.15:
                    out += "\nTraceback (most recent call last):\nValueError: bad"
                conv.append({"role": "user", "content": out})
            row = {"conversations": conv, "agent": "terminus-2", "model": "m", "date": "2026-01-01T00:00:00Z",
                   "task": f"task-{i % 400}", "episode": f"episode-{len(conv) // 2}", "trial_name": f"t{seed}-{i}",
                   "result": rng.choice(["1.0", "0.0", "AgentTimeoutError"]), "trace_source": "main"}
            fh.write(json.dumps(row) + "\n")
    return path.stat().st_size


CHILD = """
import resource, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from rl_assets.ingest import ingest_source
t0 = time.perf_counter(); rows = 0
for src in {srcs!r}:
    rows += ingest_source(src, Path(src).with_suffix('.parquet'), hub=None).rows_written
ru = resource.getrusage(resource.RUSAGE_SELF)
print(rows, time.perf_counter() - t0, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime)
"""


def run(srcs: list[str]) -> tuple[int, float, float, float]:
    out = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), srcs=srcs)],
                         check=True, capture_output=True, text=True).stdout.split()
    return int(out[0]), float(out[1]), float(out[2]), float(out[3])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--scales", default="1,4")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    base = Path(args.dir or tempfile.mkdtemp(prefix="bench_ingest_"))
    base.mkdir(parents=True, exist_ok=True)
    print(f"{'scale':>5} {'rows':>7} {'MB in':>8} {'wall s':>7} {'cpu s':>7} {'MB/s(cpu)':>9} {'peak RSS MB':>11}")
    for scale in (int(s) for s in args.scales.split(",")):
        srcs, size = [], 0
        for side in (0, 1):
            p = base / f"x{scale}_{side}.jsonl"
            size += p.stat().st_size if p.exists() else make_file(p, args.rows * scale, seed=side)
            srcs.append(str(p))
        rows, secs, rss, cpu = run(srcs)
        mb = size / 1e6  # cpu s includes interpreter start-up and imports (~0.5 s)
        print(f"{scale:>5} {rows:>7} {mb:>8.1f} {secs:>7.2f} {cpu:>7.2f} {mb / cpu:>9.1f} {rss:>11.0f}")


if __name__ == "__main__":
    main()
