"""rl-alpha's training logs: current SkyRL with WANDB_MIRROR JSON lines (docs/formats.md, SkyRL line shape 7).

A restart chain of two .out files overlapping on steps 9-12, with every irregularity the
parser must survive: Ray prefixes, ANSI colour, NaN/Infinity, 3 malformed and 1 truncated
mirror lines, eval/startup kinds, batch-error, vLLM, rollout-dump and W&B warning noise.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from . import log_common as lc
from .rand import rng

PARTS = [range(1, 13), range(9, 21)]
MALFORMED = {3: "single-quotes", 7: "missing-comma", 16: "garbage"}  # step -> kind (extra lines)
NAN_AT = (6, "policy/policy_loss")  # first file only
INF_AT = (15, "policy/raw_grad_norm")  # second file only
EVAL_STEPS = (10, 20)
STEP_S = 3455.0  # ~24 h of wall clock for the 24.5 step executions of the chain
WHERE = "skyrl_train.trainer:_log_metrics_stdout:1951"


def train_metrics(st: lc.Step) -> dict:
    m = st.m
    out = {
        "generate/avg_num_tokens": m["num_tokens"],
        "policy/final_loss": m["loss"],
        "policy/policy_entropy": m["entropy"],
        "policy/policy_kl": m["kl"],
        "policy/policy_loss": m["loss"],
        "policy/policy_lr": m["lr"],
        "policy/ppo_clip_ratio": m["clip_ratio"],
        "policy/raw_grad_norm": m["grad_norm"],
        "reward/avg_pass_at_4": m["pass_at_4"],
        "reward/avg_raw_reward": m["reward"],
        "trainer/epoch": 1,
        **{k: v for k, v in m.items() if k.startswith("timing/")},
    }
    if st.step % 2 == 0:  # odd steps omit it: the parser must default it from step=
        out["trainer/global_step"] = st.step
    if (st.step, st.part) == (NAN_AT[0], 0):
        out[NAN_AT[1]] = float("nan")
    if (st.step, st.part) == (INF_AT[0], 1):
        out[INF_AT[1]] = float("inf")
    return out


def mirror(kind: str, step: int, metrics: dict) -> str:
    return f"WANDB_MIRROR kind={kind} step={step} metrics={json.dumps(metrics, sort_keys=True)}"


def _malformed(kind: str, st: lc.Step) -> str:
    r = st.m["reward"]
    body = {
        "single-quotes": f"{{'reward/avg_raw_reward': {r}}}",
        "missing-comma": f'{{"reward/avg_raw_reward": {r} "policy/policy_kl": 0.01}}',
        "garbage": '{"reward/avg_raw_reward": \ufffd\ufffd]]',
    }[kind]
    return f"WANDB_MIRROR kind=train step={st.step} metrics={body}"


def _step_lines(st: lc.Step, seed: int, n_steps: int, t0: datetime) -> list[str]:
    r = rng(seed, "alpha-noise", st.step, st.part)
    frac = (st.step - 1) / (n_steps - 1)
    gen_end = st.start + timedelta(seconds=st.m["timing/generate"])
    lines = [lc.timer_line(st.start, "step", 0, started=True)]
    lines.append(lc.vllm_line(st.start + timedelta(minutes=5), r, 50311))
    lines += lc.batch_error_lines(st.start + timedelta(minutes=9), st, r, frac)
    lines.append(lc.vllm_line(st.start + timedelta(minutes=21), r, 50311))
    lines.append(lc.timer_line(gen_end, "generate", st.m["timing/generate"]))
    if st.step % 5 == 2:
        lines += lc.rollout_dump(r, st.m["reward"])
    pre = st.end - timedelta(seconds=2)
    lines.append(lc.timer_line(pre, "policy_train", st.m["timing/policy_train"]))
    line = lc.loguru(st.end, WHERE, mirror("train", st.step, train_metrics(st)))
    if st.step % 2 == 0:
        line = lc.ray("skyrl_entrypoint pid=8455", line)
    if st.step % 3 == 0:
        line = f"\x1b[32m{line}\x1b[0m"
    lines.append(line)
    if st.step in MALFORMED:  # 3 and 7 live only in the first file, 16 only in the second
        lines.append(lc.ray("skyrl_entrypoint pid=8455", _malformed(MALFORMED[st.step], st)))
    lines.append(lc.timer_line(st.end, "step", st.m["timing/step"]))
    lines.append(lc.tqdm_line(st.step, n_steps, (st.end - t0).total_seconds()))
    if st.step in EVAL_STEPS:
        ev = {
            "eval/all/avg_score": round(0.25 + 0.25 * frac, 4),
            "eval/terminal-bench-mini/avg_score": round(0.25 + 0.25 * frac, 4),
        }
        lines.append(lc.loguru(st.end, WHERE, mirror("eval", st.step, ev)))
        lines.append(
            lc.loguru(
                st.end,
                "skyrl_train.trainer:eval:612",
                f"Dumped eval data for terminal-bench-mini to "
                f"/scratch/rl-alpha/global_step_{st.step}_evals/terminal-bench-mini.jsonl",
            )
        )
    return lines


def render(seed: int, job: str, start: datetime) -> tuple[dict[str, str], dict, list[lc.Step]]:
    chain = lc.timeline(seed, job, start, PARTS, STEP_S)
    n_steps = PARTS[-1][-1]
    files, last_ts = {}, start
    for part, steps in enumerate(chain):
        t0 = steps[0].start - timedelta(seconds=240)
        lines = [
            lc.loguru(t0, "skyrl_train.entrypoints.main_base:main:45", f"Starting SkyRL job {job}"),
            lc.loguru(
                t0 + timedelta(seconds=230),
                WHERE,
                mirror("startup", 0, {"startup/model_loading": 181.4, "startup/ray_init": 9.2}),
            ),
        ]
        if part == 1:
            lines += [
                lc.loguru(
                    t0 + timedelta(seconds=235),
                    "skyrl_train.trainer:load_checkpoints:702",
                    "Resumed from checkpoint global_step_8",
                ),
                "wandb: WARNING Tried to log to step 9 that is less than the current step 12. Steps must "
                "be monotonically increasing, so this data will be ignored.",
            ]
        for st in steps:
            lines += _step_lines(st, seed, n_steps, chain[0][0].start)
        body = "\n".join(lines) + "\n"
        if part == 0:  # the job died while writing step 13's metrics: no newline at the end
            partial = steps[-1].end + timedelta(seconds=900)  # before the restart gap ends
            body += lc.loguru(partial, WHERE, 'WANDB_MIRROR kind=train step=13 metrics={"generate/avg_num_tokens": 17')
        files[f"{job}_{1001 + part}.out"] = body
        last_ts = steps[-1].end
    effective = {st.step: st for steps in chain for st in steps}  # later file overwrites
    final = effective[n_steps]
    # what W&B kept for the run: the last value of each key, logged at step 20 -- the independent
    # record `log_matches_wandb_summary` compares the parsed table with
    files["wandb-summary.json"] = json.dumps(
        {"_step": n_steps, "_runtime": STEP_S * n_steps, **train_metrics(final), "trainer/global_step": n_steps}
    )
    facts = {
        "format": "wandb-json",
        "files": sorted(files),
        "unique_train_steps": len(effective),
        "first_step": 1,
        "last_step": n_steps,
        "wandb_summary_matches_final_step": True,
        "duplicate_steps": sorted(set(PARTS[0]) & set(PARTS[1])),
        "malformed_lines": len(MALFORMED),
        "truncated_lines": 1,
        "unparseable_mirror_lines": len(MALFORMED) + 1,
        "final": {"reward/avg_raw_reward": final.m["reward"], "policy/policy_entropy": final.m["entropy"]},
        "later_log_wins": {
            "step": 10,
            "key": "reward/avg_raw_reward",
            "earlier_log": chain[0][9].m["reward"],
            "later_log": effective[10].m["reward"],
        },
        "non_finite": [
            {"step": NAN_AT[0], "key": NAN_AT[1], "value": "NaN"},
            {"step": INF_AT[0], "key": INF_AT[1], "value": "Infinity"},
        ],
        "eval_steps": list(EVAL_STEPS),
        "trend": {"reward/avg_raw_reward": "up", "policy/policy_entropy": "down", "policy/policy_kl": "up"},
        "time_span": {"start": chain[0][0].start - timedelta(seconds=240), "end": last_ts},
    }
    return files, facts, [effective[s] for s in sorted(effective)]
