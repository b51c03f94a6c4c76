"""rl-beta's training logs: the LEGACY 2025 skyrl_train shapes (docs/formats.md, SkyRL line shapes 3, 4, 6).

No WANDB_MIRROR lines. Per step, in the real trainer's order: an `avg_raw_rewards:` reward line
inside the step, then `Finished: 'step'`, then a python-dict policy line WITHOUT a step number (step =
resume offset + count of `Finished: 'step'` lines so far) and `[Step N] Logged`,
and once, at the end of the chain, the console tracker's multi-line pformat dict. The second
file resumes from `global_step_20` after the first one ran to step 22 (duplicates 21, 22).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from . import log_common as lc
from .rand import rng

PARTS = [range(1, 23), range(21, 41)]
RESUME_FROM = 20
STEP_S = 2500.0
ENTRY = "skyrl_entrypoint pid=31877"


def policy_dict(st: lc.Step) -> str:
    m = st.m
    d = {
        "policy_loss": m["loss"],
        "policy_lr": m["lr"],
        "ppo_clip_ratio": m["clip_ratio"],
        "policy_entropy": m["entropy"],
        "policy_kl": m["kl"],
        "raw_grad_norm": m["grad_norm"],
        "policy_update_steps": 4.0,
    }
    return repr(d)


def console_block(st: lc.Step) -> list[str]:
    """`Step N:` then pprint.pformat(metrics): sorted keys, 4-decimal strings, one key a line."""
    m = st.m
    metrics = {
        "async/staleness_max": 0,
        "async/staleness_mean": "0.0000",
        "generate/avg_num_tokens": f"{m['num_tokens']:.4f}",
        "policy/policy_entropy": f"{m['entropy']:.4f}",
        "policy/policy_kl": f"{m['kl']:.4f}",
        "reward/avg_raw_reward": f"{m['reward']:.4f}",
        "timing/step": f"{m['timing/step']:.4f}",
        "trainer/global_step": st.step,
    }
    items = [f"{k!r}: {v!r}" for k, v in sorted(metrics.items())]
    body = ["{" + items[0] + ","] + [f" {it}," for it in items[1:-1]] + [f" {items[-1]}" + "}"]
    return [f"Step {st.step}: "] + body


def _step_lines(st: lc.Step, seed: int, n_steps: int) -> list[str]:
    r = rng(seed, "beta-noise", st.step, st.part)
    frac = (st.step - 1) / (n_steps - 1)
    lines = [lc.timer_line(st.start, "step", 0, started=True)]
    lines += lc.batch_error_lines(st.start + timedelta(minutes=6), st, r, frac)
    lines.append(lc.vllm_line(st.start + timedelta(minutes=12), r, 60117))
    lines.append(
        lc.timer_line(st.start + timedelta(seconds=st.m["timing/generate"]), "generate", st.m["timing/generate"])
    )
    if st.step % 7 == 3:
        lines += lc.rollout_dump(r, st.m["reward"])
    adv_ts = st.end - timedelta(seconds=30)
    lines.append(
        lc.loguru(
            adv_ts,
            "skyrl_train.trainer:compute_advantages_and_returns:601",
            f"avg_raw_rewards: {st.m['reward']:.5f}, avg_response_length: {st.m['num_tokens']:.2f}",
        )
    )
    # the real trainer's order: the policy dict comes right AFTER `Finished: 'step'` (docs/q2.md)
    lines.append(lc.timer_line(st.end, "step", st.m["timing/step"]))
    policy = lc.loguru(st.end, "skyrl_train.trainer:train:469", policy_dict(st))
    lines.append(lc.ray(ENTRY, policy, ansi=st.step % 4 == 0))
    lines.append(lc.loguru(st.end, "skyrl_train.trainer:train:487", f"[Step {st.step}] Logged 2 metrics"))
    return lines


def render(seed: int, job: str, start: datetime) -> tuple[dict[str, str], dict]:
    chain = lc.timeline(seed, job, start, PARTS, STEP_S)
    n_steps = PARTS[-1][-1]
    files = {}
    for part, steps in enumerate(chain):
        t0 = steps[0].start - timedelta(seconds=240)
        lines = [
            "Ray runtime started.",
            lc.loguru(t0, "skyrl_train.entrypoints.main_base:main:45", f"Starting SkyRL job {job}"),
        ]
        if part == 1:
            lines.append(
                lc.loguru(
                    t0 + timedelta(seconds=200),
                    "skyrl_train.trainer:load_checkpoints:702",
                    f"Resumed from checkpoint global_step_{RESUME_FROM}",
                )
            )
        for st in steps:
            lines += _step_lines(st, seed, n_steps)
        if part == len(chain) - 1:
            lines += console_block(steps[-1])
            lines.append("Training complete.")
        files[f"{job}_{1001 + part}.out"] = "\n".join(lines) + "\n"
    effective = {st.step: st for steps in chain for st in steps}
    final = effective[n_steps]
    facts = {
        "format": "python-dict",
        "files": sorted(files),
        "unique_train_steps": len(effective),
        "first_step": 1,
        "last_step": n_steps,
        "resume_from_step": RESUME_FROM,
        "duplicate_steps": sorted(set(PARTS[0]) & set(PARTS[1])),
        "malformed_lines": 0,
        "truncated_lines": 0,
        "unparseable_mirror_lines": 0,
        "console_tracker_blocks": 1,
        "final": {"reward/avg_raw_reward": final.m["reward"], "policy/policy_entropy": final.m["entropy"]},
        "later_log_wins": {
            "step": 22,
            "key": "reward/avg_raw_reward",
            "earlier_log": chain[0][21].m["reward"],
            "later_log": effective[22].m["reward"],
        },
        "non_finite": [],
        "eval_steps": [],
        "trend": {"reward/avg_raw_reward": "up", "policy/policy_entropy": "down", "policy/policy_kl": "up"},
        "time_span": {"start": chain[0][0].start - timedelta(seconds=240), "end": chain[-1][-1].end},
    }
    return files, facts
