"""Benchmark the SkyRL log parser: ~100 MB of mixed-shape logs at 1x and 3x, time and peak RSS.

Each size is parsed in a fresh child process so its peak RSS is its own. Target: <= 5 s per
100 MB and a peak RSS that stays nearly flat from 1x to 3x (memory follows steps, not bytes).
Usage: python bench/bench_logs.py [--mb 100] [--scales 1,3]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

from child_run import measure, run_child

KEYS = (
    [f"policy/k{i}" for i in range(20)]
    + [f"generate/g{i}" for i in range(10)]
    + ["reward/avg_raw_reward", "policy/policy_entropy", "policy/policy_kl", "policy/raw_grad_norm"]
)


def step_block(step: int, r: random.Random) -> str:
    ts = (
        f"2026-06-{1 + step // 5000:02d} {step % 24:02d}:{step % 60:02d}:00.000 | INFO     | "
        f"skyrl_train.trainer:train:391 - "
    )
    metrics = json.dumps({k: round(r.random(), 5) for k in KEYS}, sort_keys=True)
    gen = "\x1b[36m(TerminalBenchGenerator pid=1, ip=10.0.0.1)\x1b[0m " + ts
    lines = [
        ts + "Started: 'step'",
        gen + f"Step {step}: collecting rollouts",
        gen + "Exception breakdown: {'AgentTimeoutError': 3, 'DaytonaError': 1}",
        gen + "Batch generation complete: 28/32 successful, 3 failed instances, 1 masked",
    ]
    for _ in range(12):  # vLLM stat lines and rollout dumps are most of a real log's bytes
        lines.append(
            "(AsyncVLLMInferenceEngine pid=5, ip=10.0.4.17) INFO 06-01 10:22:35 [loggers.py:248] Engine 000: "
            "Avg prompt throughput: 1520.4 tokens/s, Avg generation throughput: 611.0 tokens/s, Running: 37 reqs, "
            "Waiting: 0 reqs, GPU KV cache usage: 41.3%, Prefix cache hit rate: 72.9%"
        )
        lines += [
            "Prompt (last 200 chars): '... fix the failing import. root@box:/app# '",
            "Response: <think>" + "Let me check the layout. Step 1: run ls. " * 30 + "</think> ls -la src/",
            "Reward: 0.0",
            "Training Step Progress:  40%| | 7/20 [19:24<?, ?it/s]",
        ]
    lines += [
        ts + "Finished: 'generate', time cost: 700.10s",
        ts + "avg_raw_rewards: 0.41250, avg_response_length: 702.31",
        ts + "{'policy_loss': 0.0017, 'policy_entropy': 1.2, 'raw_grad_norm': 0.9, 'note': \"it's\"}",
        "(skyrl_entrypoint pid=8455) "
        + ts.replace("train:391", "_log_metrics_stdout:1951")
        + f"WANDB_MIRROR kind=train step={step} metrics={metrics}",
        ts + "Finished: 'step', time cost: 1127.13s",
    ]
    return "\n".join(lines) + "\n"


def generate(folder: Path, mb: float) -> int:
    r = random.Random(0)
    target, size, step, part = mb * 1e6, 0, 1, 0
    fh = open(folder / f"job_{1000 + part}.out", "w")
    while size < target:
        block = step_block(step, r)
        fh.write(block)
        size += len(block)
        step += 1
        if size > (part + 1) * 50e6:  # restart chain: a new .out file every 50 MB
            fh.close()
            part += 1
            fh = open(folder / f"job_{1000 + part}.out", "w")
    fh.write('WANDB_MIRROR kind=train step=999999 metrics={"cut": ')  # a truncated last line
    fh.close()
    return step - 1


def child(folder: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from rl_assets.ingest.skyrl_log import parse_training_logs

    measure(
        parse_training_logs, folder, lambda parsed: {"steps": len(parsed.steps), "malformed": parsed.malformed["count"]}
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--scales", default="1,3")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        return child(args.child)
    for scale in (float(s) for s in args.scales.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            steps = generate(Path(tmp), args.mb * scale)
            mb = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 1e6
            out = run_child(__file__, tmp)
            print(
                f"{scale:g}x: {mb:.0f} MB, {steps} steps -> {out['seconds']:.2f} s wall, {out['cpu_seconds']:.2f} s "
                f"CPU "
                f"({mb / out['seconds']:.0f} MB/s), peak RSS {out['peak_rss_mb']:.0f} MB, "
                f"parsed steps {out['steps']}, malformed {out['malformed']}; "
                f"library imports before it {out['import_seconds']:.2f} s"
            )


if __name__ == "__main__":
    main()
