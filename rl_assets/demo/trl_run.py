"""rl-trl-grpo: a healthy TRL GRPO checkpoint carrying its Trainer's `trainer_state.json`.

The Hugging Face Trainer saves the whole `log_history` so far into every `checkpoint-<N>/` folder;
the demo uploads two of them under training_logs/. Planted (docs/demo.md): the accuracy reward
function carries the reward up, the format reward function is already saturated and flat, the
validation reward rises, nothing collapses: reward_integrity must say **healthy**.
"""

from __future__ import annotations

import pandas as pd

from .rand import rng

MAX_STEPS, LOGGING_STEPS, EVAL_STEPS, SAVE_STEPS = 300, 5, 50, 150
OUTPUT_DIR = "outputs/qwen3-8b-grpo"
VERDICT = "healthy"
ONSETS: dict[str, int] = {}  # a healthy run: no failure-mode onsets


def log_history(seed: int, upto: int = MAX_STEPS) -> list[dict]:
    """Train entries every LOGGING_STEPS, eval entries every EVAL_STEPS (TRL >= 0.19 key names)."""
    out = []
    for step in range(LOGGING_STEPS, upto + 1, LOGGING_STEPS):
        r, frac = rng(seed, "trl-grpo", step), step / MAX_STEPS
        acc, fmt = 0.2 + 0.5 * frac + r.gauss(0, 0.02), 0.9 + r.gauss(0, 0.01)
        entry = {
            "step": step,
            "epoch": round(frac, 4),
            "loss": round(r.gauss(0, 0.01), 6),
            "grad_norm": round(0.3 + abs(r.gauss(0, 0.05)), 6),
            "learning_rate": 1e-6,
            "reward": round(acc + fmt, 6),
            "reward_std": round(0.3 + r.gauss(0, 0.02), 6),
            "rewards/accuracy_reward/mean": round(acc, 6),
            "rewards/accuracy_reward/std": 0.4,
            "rewards/format_reward/mean": round(fmt, 6),
            "rewards/format_reward/std": 0.1,
            "completions/mean_length": round(350 - 50 * frac + r.gauss(0, 4), 3),
            "kl": round(0.05 * frac + abs(r.gauss(0, 0.002)), 6),
            "entropy": round(0.7 - 0.2 * frac + r.gauss(0, 0.005), 6),
        }
        out.append(entry)
        if step % EVAL_STEPS == 0:
            out.append(
                {
                    "step": step,
                    "epoch": entry["epoch"],
                    "eval_loss": 0.0,
                    "eval_reward": round(1.05 + 0.4 * frac + r.gauss(0, 0.005), 6),
                    "eval_runtime": 41.2,
                }
            )
    return out


def trainer_state(seed: int, global_step: int) -> dict:
    """One checkpoint folder's trainer_state.json."""
    best = (global_step // EVAL_STEPS) * EVAL_STEPS
    return {
        "best_global_step": best,
        "best_metric": None,
        "best_model_checkpoint": f"{OUTPUT_DIR}/checkpoint-{best}",
        "epoch": global_step / MAX_STEPS,
        "eval_steps": EVAL_STEPS,
        "global_step": global_step,
        "is_hyper_param_search": False,
        "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": log_history(seed, global_step),
        "logging_steps": LOGGING_STEPS,
        "max_steps": MAX_STEPS,
        "num_train_epochs": 1,
        "save_steps": SAVE_STEPS,
        "total_flos": 0.0,
        "train_batch_size": 8,
        "trial_name": None,
        "trial_params": None,
    }


def files(seed: int) -> dict[str, dict]:
    """training_logs/ relative path -> trainer_state.json content."""
    return {
        f"checkpoint-{s}/trainer_state.json": trainer_state(seed, s)
        for s in range(SAVE_STEPS, MAX_STEPS + 1, SAVE_STEPS)
    }


def canonical(entries: list[dict]) -> pd.DataFrame:
    """The per-step table a TRL reader hands over (the training-log readers' contract), eval entries merged per step."""
    frame = pd.DataFrame(entries).groupby("step", as_index=False).first()
    return frame.assign(
        reward=frame["reward"],
        task_score=frame["rewards/accuracy_reward/mean"],
        **{
            "reward_term/task/accuracy_reward": frame["rewards/accuracy_reward/mean"],
            "reward_term/format/format_reward": frame["rewards/format_reward/mean"],
        },
        response_length=frame["completions/mean_length"],
        val_score=frame["eval_reward"],
    )
