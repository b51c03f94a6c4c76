"""SkyRL training-log reader (source layer): every line shape of docs/formats.md -> one per-step table.

``parse_training_logs(folder)`` is the entry point; the modules below it each read one SkyRL concern
(clean: prefixes/time, parser: the per-file state machine, shapes: the metric-bearing lines,
batch_errors). The pieces every trainer reader shares -- the folder walk and decompression (files),
the line ledger (result), payload decoding, sidecars (trainer_log.jsonl / wandb-summary.json),
restart chains (merge), the cross-check and vLLM lines -- live in rl_assets/ingest/training_logs/.
Canonical columns come from the neutral rl_assets/values/metric_aliases.py; the Q2 report's timing,
plots and cross-check lines are analyses in rl_assets/analysis/q2/.
"""

from __future__ import annotations

from pathlib import Path

from rl_assets.ingest.training_logs.crosscheck import compare_final_step, no_record, summary_step
from rl_assets.ingest.training_logs.files import (
    LOG_SUFFIXES,
    STREAM_ERRORS,
    Discovered,
    discover,
    lines_until_cut,
    open_text,
    record_cut,
)
from rl_assets.ingest.training_logs.merge import chain_order, merge_chain
from rl_assets.ingest.training_logs.parsed import ParsedLogs
from rl_assets.ingest.training_logs.result import LogAccountingError, check_lines, line_ledger, non_finite_ledger
from rl_assets.ingest.training_logs.sidecars import best_wandb_summary, parse_trainer_jsonl
from rl_assets.ingest.training_logs.vllm import VllmAccumulator, vllm_summary
from rl_assets.values.metric_aliases import ALIASES, CANONICAL, apply_aliases, derive_concepts

from .parser import LogFileParser, LogFileResult, parse_log_file

__all__ = [
    "ALIASES",
    "CANONICAL",
    "LOG_SUFFIXES",
    "LogAccountingError",
    "LogFileParser",
    "apply_aliases",
    "parse_log_file",
    "parse_training_logs",
]


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
