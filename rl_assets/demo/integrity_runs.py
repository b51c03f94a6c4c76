"""The demo's reward-integrity runs: a verl run with a planted hack (demo/verl_run.py) and a healthy TRL
checkpoint (demo/trl_run.py), each a small model repo of its own with only weights, a card and
training_logs/. They have no evals, so `rldelta demo` runs only the Q2 training and integrity assets
on them (INTEGRITY_ASSETS), then `mismatches` compares each model's stored `reward_integrity` value
with ground_truth.json -> reward_integrity: the verdict, every planted onset at its exact step, and
no onset that was not planted; `rldelta demo --run` fails on any mismatch."""

from __future__ import annotations

import json
from datetime import datetime

from . import models, trl_run, verl_run
from .constants import BASE, ORG
from .hubfiles import HubWriter

VERL_MODEL, TRL_MODEL = f"{ORG}/rl-verl-hack-8B", f"{ORG}/rl-trl-grpo-8B"
MODELS = (VERL_MODEL, TRL_MODEL)
INTEGRITY_ASSETS = ("checkpoint", "training_logs", "training_metrics", "reward_integrity", "analysis_index")
VERL_LOG = "main_ppo.out"


def _repo(hub: HubWriter, repo_id: str, trainer: str, mtime: datetime) -> None:
    body = (
        f"RL checkpoint trained from [{BASE}](https://huggingface.co/{BASE}) with {trainer}.\n\n"
        "## Training logs\n\nThe trainer's own logs are under `training_logs/`."
    )
    hub.write(repo_id, "model", "model.safetensors", models.safetensors_placeholder(repo_id), mtime)
    hub.write_json(repo_id, "model", "config.json", models.CONFIG, mtime)
    hub.write(repo_id, "model", "README.md", models._card(repo_id, BASE, body), mtime)


def write(hub: HubWriter, seed: int, mtime: datetime) -> dict:
    """Write both repos; return their ground truth (ground_truth.json -> reward_integrity)."""
    _repo(hub, VERL_MODEL, "verl (GRPO)", mtime)
    hub.write(VERL_MODEL, "model", f"training_logs/{VERL_LOG}", verl_run.console(verl_run.metrics(seed)), mtime)
    for rel, table in verl_run.tables(seed).items():
        hub.write(VERL_MODEL, "model", f"training_logs/{rel}", json.dumps(table) + "\n", mtime)
    _repo(hub, TRL_MODEL, "TRL (GRPOTrainer)", mtime)
    for rel, state in trl_run.files(seed).items():
        hub.write(TRL_MODEL, "model", f"training_logs/{rel}", json.dumps(state, indent=2) + "\n", mtime)
    return truth()


def truth() -> dict:
    return {
        "models": list(MODELS),
        VERL_MODEL: {
            "trainer": "verl",
            "verdict": verl_run.VERDICT,
            "onsets": verl_run.ONSETS,
            "steps": verl_run.STEPS,
        },
        TRL_MODEL: {
            "trainer": "trl",
            "verdict": trl_run.VERDICT,
            "onsets": trl_run.ONSETS,
            "steps": trl_run.MAX_STEPS // trl_run.LOGGING_STEPS,
        },
    }


def mismatches(values: dict[str, dict | None], truth: dict) -> list[str]:
    out = []
    for model in truth["models"]:
        want, got = truth[model], values.get(model)
        if not got or not got.get("applicable"):
            out.append(f"{model}: no reward_integrity verdict ({(got or {}).get('reason', 'not materialized')})")
            continue
        if got["verdict"] != want["verdict"]:
            out.append(
                f"{model}: verdict {got['verdict']!r}, planted {want['verdict']!r} ({got.get('verdict_reason')})"
            )
        found = got.get("onsets") or {}
        for signal, step in want["onsets"].items():
            if found.get(signal) != step:
                out.append(f"{model}: {signal} onset at step {found.get(signal)}, planted at step {step}")
        for signal in sorted(set(found) - set(want["onsets"])):
            out.append(f"{model}: {signal} holds from step {found[signal]}, but nothing was planted there")
    return out
