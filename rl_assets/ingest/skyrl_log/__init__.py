"""SkyRL training-log reader (source layer): every line shape of docs/formats.md -> one per-step table.

``parse_training_logs(folder)`` is the entry point; the modules below it each read one concern
(files: the folder walk and decompression, clean: prefixes/time, payloads: dict/JSON, parser: the
per-file state machine, batch_errors, vllm, sidecars: trainer_log.jsonl / wandb-summary.json, merge:
restart chains, crosscheck: the table against those records). Canonical columns come from the neutral
rl_assets/values/metric_aliases.py; the Q2 report's timing, plots and cross-check lines are analyses in
rl_assets/analysis/q2/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rl_assets.values.metric_aliases import ALIASES, CANONICAL, apply_aliases, derive_concepts

from .crosscheck import compare_final_step, no_record, summary_step
from .files import LOG_SUFFIXES, STREAM_ERRORS, Discovered, discover, lines_until_cut, open_text, record_cut
from .merge import chain_order, join_eval_rounds, merge_chain
from .parser import LogFileParser, LogFileResult, parse_log_file
from .result import LogAccountingError, check_lines, line_ledger, non_finite_ledger
from .sidecars import best_wandb_summary, parse_trainer_jsonl
from .vllm import VllmAccumulator, vllm_summary

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ALIASES",
    "CANONICAL",
    "LOG_SUFFIXES",
    "LogAccountingError",
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
    accounting: dict = field(default_factory=dict)  # {"lines": ledger, "files": ledger}
    cross_checks: list[dict] = field(default_factory=list)  # one per independent record
    trainer: str = "skyrl"  # which reader produced this (rl_assets/ingest/training_logs/)
    reward_terms: dict[str, str] = field(default_factory=dict)  # reward_term/<kind>/<name> column -> kind
    trainer_info: dict = field(default_factory=dict)  # what the trainer recorded of itself (HF: checkpoints)


def _read_logs(found: Discovered, base: Path) -> list[LogFileResult]:
    """Each chain log, up to where it can be read: a stream that fails part-way (a .gz cut short, a
    cap) keeps its lines before the failure, and the failure is named in the file ledger."""
    results = []
    for p in list(found.logs):
        rel = str(p.relative_to(base))
        parser = LogFileParser(rel)
        try:
            with open_text(p) as fh:
                for line in lines_until_cut(fh, parser.res):
                    parser.feed(line)
        except STREAM_ERRORS as exc:  # failed at open (a file past the plain-file cap, no permission)
            found.unreadable(p, rel, exc)
            continue
        res = parser.finish()
        record_cut(found, res)
        results.append(res)
    return results


def _cross_checks(text_results, jsonl_results, wandb_summary, tolerance, unreadable: list[dict]) -> list[dict]:
    """The table parsed from the text logs alone against each independent record present (after the
    records that are there but unreadable, each a failure of the cross-check)."""
    import pandas as pd

    checks = list(unreadable)
    text_steps, _ = merge_chain(text_results, "steps") if text_results else (pd.DataFrame(), {})
    if not text_steps.empty:
        text_steps, _ = apply_aliases(text_steps)
    if wandb_summary:
        step = summary_step(wandb_summary, text_steps)
        if step is None:
            checks.append(no_record("wandb-summary.json names no step (_step / trainer/global_step)"))
        elif text_steps.empty:
            checks.append(no_record("wandb-summary.json present but no text log to compare it with"))
        else:
            checks.append(compare_final_step(text_steps, wandb_summary, step, "wandb-summary.json", tolerance))
    for res in jsonl_results:
        if res.steps.row_of and not text_steps.empty:
            last = max(res.steps.row_of)
            record = {
                k: v
                for k, v in res.steps.to_frame().set_index("step").loc[last].items()
                if not k.startswith("__") and v == v
            }
            checks.append(compare_final_step(text_steps, record, last, res.name, tolerance))
    return checks or [no_record("no wandb-summary.json or trainer_log.jsonl beside the logs")]


LOGS_FOLDER = "training_logs"  # where a model repo keeps its SkyRL logs (docs/formats.md)


def logs_folder(snapshot: Path | str) -> Path:
    """The training_logs/ folder inside a downloaded model-repo snapshot."""
    return Path(snapshot) / LOGS_FOLDER


def parse_training_logs(path: Path | str) -> ParsedLogs:
    """Parse a ``training_logs/`` folder (or one file). Never raises on bad lines; raises
    FileNotFoundError only when the path itself is missing, LogAccountingError on a ledger bug."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"training logs path does not exist: {path}")
    found = discover(path)
    base = path if path.is_dir() else path.parent
    text_results = _read_logs(found, base)
    jsonl_results = []
    for p in found.jsonl:
        res = parse_trainer_jsonl(p)
        res.name = str(p.relative_to(base))
        jsonl_results.append(res)
    results = text_results + jsonl_results
    steps, duplicates = merge_chain(results, "steps")
    steps = join_eval_rounds(steps, merge_chain(results, "eval_rounds")[0])
    steps, alias_sources = apply_aliases(steps)
    steps, derived, reward_terms = derive_concepts(steps)
    alias_sources.update(derived)
    evals, _ = merge_chain(results, "evals")
    vllm = VllmAccumulator()
    startup: dict[str, float] = {}
    counts: dict[str, int] = {}
    examples: list[str] = []
    serializations: set[str] = set()
    tolerance: dict[str, float] = {}
    per_file = {}
    for res in chain_order(results):
        vllm.merge(res.vllm)
        startup.update(res.startup)
        serializations |= res.serializations
        examples.extend(res.examples)
        per_file[res.name] = line_ledger(res.counts)
        for k, v in res.printed_tolerance.items():
            tolerance[k] = max(tolerance.get(k, 0.0), v)
        for k, v in res.counts.items():
            counts[k] = counts.get(k, 0) + v
    vllm_frame = vllm.to_frame()
    wandb_summary, unreadable = best_wandb_summary(found.summaries, base)
    malformed = {
        "count": counts.get("malformed", 0),
        "by_reason": {k.split("/", 1)[1]: v for k, v in counts.items() if k.startswith("malformed/")},
        "examples": examples[:10],
    }
    accounting = {
        "lines": {**check_lines("training logs", counts), "per_file": per_file},
        "files": found.check(),
        "non_finite": non_finite_ledger(results),
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
        accounting=accounting,
        cross_checks=_cross_checks(text_results, jsonl_results, wandb_summary, tolerance, unreadable),
        reward_terms=reward_terms,
    )
