"""SkyRL training-log parsers: every line shape of docs/formats.md -> one per-step table.

``parse_training_logs(folder)`` is the entry point; the modules below it each read one concern
(clean: prefixes/time, payloads: dict/JSON, parser: the per-file state machine, batch_errors, vllm,
sidecars: trainer_log.jsonl / wandb-summary.json, merge: restart chains, aliases: canonical columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .aliases import ALIASES, CANONICAL, apply_aliases
from .merge import chain_order, merge_chain
from .parser import LogFileParser, LogFileResult, parse_log_file
from .sidecars import parse_trainer_jsonl, read_wandb_summary
from .vllm import VllmAccumulator, vllm_summary

LOG_SUFFIXES = (".out", ".log", ".err")

__all__ = [
    "ALIASES",
    "CANONICAL",
    "LogFileParser",
    "ParsedLogs",
    "apply_aliases",
    "parse_log_file",
    "parse_training_logs",
]


@dataclass
class ParsedLogs:
    steps: pd.DataFrame  # one row per training step: step, step_time_utc, canonical, raw keys
    evals: pd.DataFrame  # kind=eval rows keyed by step
    startup: dict[str, float]
    vllm: pd.DataFrame  # one row per vLLM time point
    vllm_summary: dict
    duplicates: dict  # restart-chain report
    malformed: dict  # {"count", "by_reason", "examples"}
    files: list[str]
    serializations: list[str]
    alias_sources: dict[str, dict[str, int]]
    wandb_summary: dict = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def discover(folder: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """(chain logs, trainer_log.jsonl files, wandb-summary.json files) under ``folder``."""
    if folder.is_file():
        return [folder], [], []
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    logs = [p for p in files if p.suffix in LOG_SUFFIXES]
    jsonl = [p for p in files if p.name == "trainer_log.jsonl"]
    summaries = [p for p in files if p.name == "wandb-summary.json"]
    return logs, jsonl, summaries


def parse_training_logs(path: Path | str) -> ParsedLogs:
    """Parse a ``training_logs/`` folder (or one file). Never raises on bad lines; raises
    FileNotFoundError only when the path itself is missing."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"training logs path does not exist: {path}")
    logs, jsonls, summaries = discover(path)
    base = path if path.is_dir() else path.parent
    results: list[LogFileResult] = []
    for p in logs:
        res = parse_log_file(p)
        res.name = str(p.relative_to(base))
        results.append(res)
    for p in jsonls:
        res = parse_trainer_jsonl(p)
        res.name = str(p.relative_to(base))
        results.append(res)
    steps, duplicates = merge_chain(results, "steps")
    steps, alias_sources = apply_aliases(steps)
    evals, _ = merge_chain(results, "evals")
    vllm = VllmAccumulator()
    startup: dict[str, float] = {}
    counts: dict[str, int] = {}
    examples: list[str] = []
    serializations: set[str] = set()
    for res in chain_order(results):
        vllm.merge(res.vllm)
        startup.update(res.startup)
        serializations |= res.serializations
        examples.extend(res.examples)
        for k, v in res.counts.items():
            counts[k] = counts.get(k, 0) + v
    vllm_frame = vllm.to_frame()
    wandb_summary = {}
    for p in summaries:  # several runs: the summary that reached the furthest step
        cand = read_wandb_summary(p)
        if cand.get("_step", -1) >= wandb_summary.get("_step", -1):
            wandb_summary = cand
    malformed = {
        "count": counts.get("malformed", 0),
        "by_reason": {k.split("/", 1)[1]: v for k, v in counts.items() if k.startswith("malformed/")},
        "examples": examples[:10],
    }
    return ParsedLogs(
        steps=steps,
        evals=evals,
        startup=startup,
        vllm=vllm_frame,
        vllm_summary=vllm_summary(vllm_frame, vllm.samples),
        duplicates=duplicates,
        malformed=malformed,
        files=[r.name for r in chain_order(results)],
        serializations=sorted(serializations),
        alias_sources=alias_sources,
        wandb_summary=wandb_summary,
        counts=counts,
    )
