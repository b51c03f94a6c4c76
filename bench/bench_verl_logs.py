"""Benchmark the verl console reader: ~10 MB and ~100 MB of W&B output.log, time and peak RSS.

Each size is generated in the shape of a real verl 0.7 run (Ray-prefixed step lines of ~90 keys,
values as np.float64(...) reprs and plain numbers, negatives, a validation round every 10 steps, an
"Initial validation metrics" pprint block, and the Ray worker / tqdm lines between steps) and read
by ``read_training_logs`` in a fresh child process, so each peak RSS is its own.
Target (issue 22): 100 MB in <= 3 s; peak RSS flat from 10 MB to 100 MB (memory follows the
number of steps in the table, not the bytes of log).
Usage: python bench/bench_verl_logs.py [--sizes 10,100]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from child_run import measure, run_child

GROUPS = ("actor", "critic", "perf", "timing_s", "timing_per_token_ms", "response_length", "prompt_length")
KEYS = [f"{g}/m{i}" for g in GROUPS for i in range(11)] + [
    "critic/score/mean",
    "critic/rewards/mean",
    "actor/entropy",
    "actor/pg_loss",
    "actor/grad_norm",
    "actor/kl_loss",
    "response_length/mean",
    "training/global_step",
]
PREFIX = "\x1b[36m(TaskRunner pid=2617997)\x1b[0m "
NOISE = [
    "\x1b[36m(WorkerDict pid=2642022)\x1b[0m DEBUG:2026-07-23 18:43:25,394:compute_log_prob Before compute_log_prob, "
    "memory allocated (GB): 41.21, memory reserved (GB): 41.33, device memory used/total (GB): 8.49/63.59",
    "\x1b[36m(WorkerDict pid=2642094)\x1b[0m INFO:2026-07-23 18:43:41,320:Memory cleanup attempt 1: Freed 0.00 GB "
    "reserved, 0.00 GB allocated\x1b[32m [repeated 16x across cluster]\x1b[0m",
    "Training Progress:  84%|########4 | 67/80 [1:41:29<18:32, 85.61s/it]",
]


def value(r: random.Random) -> str:
    v = r.uniform(-2, 2) * 10 ** r.randint(-6, 3)
    return f"np.float64({v!r})" if r.random() < 0.5 else repr(v)


def step_text(step: int, r: random.Random) -> str:
    pairs = [f"{k}:{value(r)}" if k != "training/global_step" else f"{k}:{step}" for k in KEYS]
    if step % 10 == 0:  # a validation round lands in the same line
        pairs += [
            f"val-core/openai/gsm8k/acc/mean@1:np.float64({r.random()!r})",
            f"val-aux/openai/gsm8k/reward/mean@1:np.float64({r.random()!r})",
        ]
    return PREFIX + f"step:{step} - " + " - ".join(pairs) + "\n" + "\n".join(NOISE * 10) + "\n"


def generate(folder: Path, mb: float) -> int:
    r = random.Random(0)
    path = folder / "wandb" / "run-20260723_155000-abc" / "files" / "output.log"
    path.parent.mkdir(parents=True)
    size, step = 0, 0
    with open(path, "w", encoding="utf-8") as fh:
        head = (
            PREFIX
            + "('Initial validation metrics: '\n"
            + PREFIX
            + " \"{'val-core/openai/gsm8k/acc/mean@1': np.float64(0.25)}\")\n"
        )
        fh.write(head)
        size += len(head)
        while size < mb * 1e6:
            step += 1
            text = step_text(step, r)
            fh.write(text)
            size += len(text)
    return step


def child(folder: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from rl_assets.ingest.training_logs import read_training_logs

    measure(
        read_training_logs,
        folder,
        lambda parsed: {
            "steps": len(parsed.steps),
            "trainer": parsed.trainer,
            "lines": parsed.accounting["lines"]["read"],
        },
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,100")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        return child(args.child)
    for mb in (float(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            steps = generate(Path(tmp), mb)
            real_mb = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file()) / 1e6
            out = run_child(__file__, tmp)
            print(
                f"{real_mb:.0f} MB, {steps} steps, {out['lines']} lines -> {out['seconds']:.2f} s wall, "
                f"{out['cpu_seconds']:.2f} s CPU ({real_mb / out['seconds']:.0f} MB/s), "
                f"peak RSS {out['peak_rss_mb']:.0f} MB, {out['trainer']} steps {out['steps']}; "
                f"library imports before it {out['import_seconds']:.2f} s"
            )


if __name__ == "__main__":
    main()
