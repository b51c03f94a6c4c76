"""HF Trainer / TRL ``trainer_state.json`` -> per-step metrics (docs/q2.md, "HF Trainer / TRL").

The Trainer saves the whole ``log_history`` so far into every ``checkpoint-*/`` folder (and the
repo root on the final save), so one run's entries repeat across files. Files are read newest first
(highest ``global_step``, then the longest ``log_history``); an entry whose (step, kind) a newer
file already gave is counted ``ignored/in_newer_checkpoint`` -- accounted, never counted twice.
Within one file a (step, kind) logged twice (a run resumed from an earlier checkpoint appends the
re-run steps) keeps its LAST entry; the earlier ones are counted ``duplicate/log_history_<kind>``.
Entry kinds: ``train`` (loss/reward…), ``eval`` (``eval_*`` keys, kept in the same step row, where
``eval_reward``/``eval_accuracy`` become val_score) and the closing ``summary`` (``train_runtime``,
``total_flos``: run totals, not a step's values, ignored). Each entry is one "line" of the ledger.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from rl_assets.ingest.training_logs.files import natural_key
from rl_assets.ingest.training_logs.result import LogFileResult, check_lines, line_ledger

SUMMARY_KEYS = ("train_runtime", "total_flos", "train_samples_per_second")
NOT_METRICS = ("step",)


def _numeric(entry: dict) -> dict[str, float]:
    out = {}
    for key, value in entry.items():
        if key in NOT_METRICS or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        try:
            out[key] = float(value)  # a non-finite value is kept as read: the step store counts and names it
        except OverflowError:  # a JSON integer past the float range: ±inf, counted as such
            out[key] = math.inf if value > 0 else -math.inf
    return out


def _kind(entry: dict) -> str:
    if any(k in entry for k in SUMMARY_KEYS):
        return "summary"
    return "eval" if any(k.startswith("eval_") for k in entry) else "train"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8", errors="replace"))


def _last_entry_of(history: list) -> dict[tuple[int, str], int]:
    """(step, kind) -> index of its last entry in one log_history."""
    last = {}
    for at, entry in enumerate(history):
        step = entry.get("step") if isinstance(entry, dict) else None
        if isinstance(step, (int, float)) and not isinstance(step, bool) and math.isfinite(step) and step == int(step):
            last[(int(step), _kind(entry))] = at
    return last


def read_trainer_states(paths: list[Path], base: Path) -> tuple[LogFileResult, dict]:
    """All trainer_state.json files of one run -> (one result, {per_file ledgers, checkpoints: newest
    first, each with its global_step, entries, best_model_checkpoint and best_metric})."""
    states = []
    for p in paths:
        obj = _load(p)
        history = obj.get("log_history") or []
        states.append((int(obj.get("global_step") or 0), len(history), natural_key(str(p.relative_to(base))), p, obj))
    states.sort(key=lambda s: s[:3], reverse=True)  # newest first
    merged = LogFileResult(name="trainer_state.json")
    merged.serializations.add("hf-trainer-state")
    seen: dict[tuple[int, str], str] = {}
    per_file, checkpoints = {}, []
    for global_step, _, _, path, obj in states:
        rel = str(path.relative_to(base))
        res = LogFileResult(name=rel)
        history = obj.get("log_history") or []
        last_of = _last_entry_of(history)
        for at, entry in enumerate(history):
            res.bump("lines")
            if not isinstance(entry, dict):
                res.malformed("entry_not_object", json.dumps(entry)[:200])
                continue
            step = entry.get("step")
            if (
                isinstance(step, bool)
                or not isinstance(step, (int, float))
                or not math.isfinite(step)
                or step != int(step)
                or step < 0
            ):
                res.malformed("entry_without_step", json.dumps(entry)[:200])
                continue
            kind = _kind(entry)
            if kind == "summary":
                res.ignored("run_summary")
                continue
            if last_of[(int(step), kind)] != at:  # logged again later in this file (a resumed run): newest wins
                res.bump(f"duplicate/log_history_{kind}")
                continue
            if (int(step), kind) in seen:
                res.ignored("in_newer_checkpoint")
                continue
            seen[(int(step), kind)] = rel
            merged.steps.update(int(step), _numeric(entry))
            res.parsed(f"log_history_{kind}")
        check_lines(rel, res.counts)
        per_file[rel] = line_ledger(res.counts)
        for key, n in res.counts.items():
            merged.bump(key, n)
        merged.examples.extend(res.examples)
        checkpoints.append(
            {
                "file": rel,
                "global_step": global_step,
                "entries": res.counts.get("lines", 0),
                "best_model_checkpoint": obj.get("best_model_checkpoint"),
                "best_metric": obj.get("best_metric"),
            }
        )
    return merged, {"per_file": per_file, "checkpoints": checkpoints}


def looks_like_trl(result: LogFileResult) -> bool:
    """TRL's RL trainers log the reward (``reward``, ``rewards/<fn>/mean``); a plain Trainer does not."""
    return any(k == "reward" or k.startswith("rewards/") for k in result.steps.columns)
