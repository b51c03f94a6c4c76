"""What both SkyRL log dialects share: the run's timeline, its metric curves and the noise lines.

The metric curves carry the built-in training story: reward rises 0.2 -> 0.6, entropy falls,
KL creeps up, responses get shorter. A step re-run after a restart redraws its noise, so the
duplicate steps in a chain really differ and "later log wins" is observable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .rand import rng

TIMERS = (
    "generate",
    "postprocess_generator_output",
    "convert_to_training_input",
    "fwd_logprobs_values_reward",
    "compute_advantages_and_returns",
    "policy_train",
    "sync_weights",
)
_TIMER_SHARE = (0.62, 0.004, 0.01, 0.05, 0.002, 0.22, 0.03)


@dataclass
class Step:
    step: int
    part: int  # which .out file of the restart chain
    start: datetime
    end: datetime
    m: dict = field(default_factory=dict)  # canonical values: reward, entropy, kl, ...


def curve(seed: int, job: str, step: int, part: int, n_steps: int, step_s: float) -> dict:
    r = rng(seed, job, "metrics", step, part)
    frac = (step - 1) / max(n_steps - 1, 1)
    dur = step_s * r.uniform(0.93, 1.07)
    m = {
        "reward": round(min(max(0.2 + 0.4 * frac + r.gauss(0, 0.025), 0.0), 1.0), 4),
        "pass_at_4": round(min(0.35 + 0.45 * frac + r.gauss(0, 0.03), 1.0), 4),
        "entropy": round(1.30 - 0.55 * frac + r.gauss(0, 0.015), 4),
        "kl": round(abs(0.002 + 0.028 * frac + r.gauss(0, 0.0015)), 5),
        "grad_norm": round(0.35 + r.gauss(0, 0.05), 4),
        "loss": round(r.gauss(0, 0.01), 5),
        "lr": 1e-06,
        "clip_ratio": round(abs(r.gauss(0.012, 0.004)), 5),
        "num_tokens": round(1900 - 500 * frac + r.gauss(0, 30), 2),
        "timing/step": round(dur, 2),
    }
    for name, share in zip(TIMERS, _TIMER_SHARE):
        m[f"timing/{name}"] = round(dur * share * r.uniform(0.9, 1.1), 2)
    return m


def timeline(
    seed: int, job: str, start: datetime, parts: list[range], step_s: float, restart_gap_s: float = 1500.0
) -> list[list[Step]]:
    """Steps per chain file, back to back in wall-clock time; a restart gap between files."""
    n_steps = max(p[-1] for p in parts)
    t = start + timedelta(seconds=240)  # model loading before the first step
    out = []
    for part, steps in enumerate(parts):
        chunk = []
        for s in steps:
            m = curve(seed, job, s, part, n_steps, step_s)
            end = t + timedelta(seconds=m["timing/step"])
            chunk.append(Step(s, part, t, end, m))
            t = end
        out.append(chunk)
        t += timedelta(seconds=restart_gap_s)
    return out


def loguru(ts: datetime, where: str, msg: str, level: str = "INFO") -> str:
    return f"{ts:%Y-%m-%d %H:%M:%S}.{ts.microsecond // 1000:03d} | {level:<8} | {where} - {msg}"


def ray(actor: str, line: str, ansi: bool = False) -> str:
    return f"\x1b[36m({actor})\x1b[0m {line}" if ansi else f"({actor}) {line}"


def timer_line(ts: datetime, what: str, secs: float, started: bool = False) -> str:
    where = "skyrl_train.trainer:train:391"
    return loguru(ts, where, f"Started: '{what}'" if started else f"Finished: '{what}', time cost: {secs:.2f}s")


def vllm_line(ts: datetime, r: random.Random, engine_pid: int) -> str:
    running = r.randint(8, 40)
    return (
        f"(AsyncVLLMInferenceEngine pid={engine_pid}, ip=10.0.4.17) INFO {ts:%m-%d %H:%M:%S} "
        f"[loggers.py:248] Engine 000: Avg prompt throughput: {r.uniform(800, 2400):.1f} tokens/s, "
        f"Avg generation throughput: {r.uniform(300, 900):.1f} tokens/s, Running: {running} reqs, "
        f"Waiting: {r.randint(0, 3)} reqs, GPU KV cache usage: {r.uniform(20, 70):.1f}%, "
        f"Prefix cache hit rate: {r.uniform(50, 90):.1f}%"
    )


def batch_error_lines(ts: datetime, st: Step, r: random.Random, frac: float) -> list[str]:
    """`Step N:` marker, `Exception breakdown` and `Batch generation complete` (agentic generator)."""
    actor = "TerminalBenchGenerator pid=48213, ip=10.0.5.12"
    where = "terminal_bench.terminal_bench_generator:generate"
    timeouts = max(0, round(r.gauss(5 - 4 * frac, 1)))
    context = r.randint(0, 2)
    infra = 1 if r.random() < 0.3 else 0
    breakdown = {
        k: v
        for k, v in (("AgentTimeoutError", timeouts), ("ContextLengthExceededError", context), ("DaytonaError", infra))
        if v
    }
    failed = timeouts + context
    lines = [ray(actor, loguru(ts, where, f"Step {st.step}: collecting rollouts"), ansi=True)]
    if breakdown:
        lines.append(ray(actor, loguru(ts, where, f"Exception breakdown: {breakdown}"), ansi=True))
    lines.append(
        ray(
            actor,
            loguru(
                ts,
                where,
                f"Batch generation complete: {32 - failed - infra}/32 successful, "
                f"{failed} failed instances, {infra} masked (excluded from baseline)",
                "WARNING",
            ),
            ansi=True,
        )
    )
    return lines


def rollout_dump(r: random.Random, reward: float) -> list[str]:
    prompt = "... Run the test-suite and fix the failing import. Current terminal state:\nroot@box:/app# "
    return [
        f"Prompt (last 200 chars): {prompt[-200:]!r}",
        "Response: <think>Check the package layout first.</think> ls -la src/",
        f"Reward: {1.0 if r.random() < reward else 0.0}",
    ]


def tqdm_line(step: int, n_steps: int, elapsed_s: float) -> str:
    pct = int(100 * step / n_steps)
    mins, secs = divmod(int(elapsed_s), 60)
    return f"Training Step Progress: {pct:3d}%| | {step}/{n_steps} [{mins:02d}:{secs:02d}<?, ?it/s]"
