"""One trainer reader's per-file results -> the ParsedLogs every trainer returns (docs/q2.md).

The same table, ledger and cross-check as the SkyRL reader: files merged in chain order (a later
file wins a repeated step whole, reported in ``duplicates``), canonical columns from
rl_assets/values/metric_aliases.py, the line ledger summed over files, and the final step compared with
the folder's ``wandb-summary.json`` when there is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rl_assets.values.metric_aliases import apply_aliases, derive_concepts

from .crosscheck import compare_final_step, no_record
from .files import Discovered
from .merge import chain_order, merge_chain
from .parsed import ParsedLogs
from .result import LogFileResult, check_lines, line_ledger, non_finite_ledger
from .sidecars import best_wandb_summary
from .vllm import VllmAccumulator, vllm_summary

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

# W&B's own step counter is the trainer's step for verl (it logs with step=global_steps); the HF
# Trainer's W&B callback lets W&B count its own calls and logs the step as train/global_step.
SUMMARY_STEP_KEYS = {
    "verl": ("_step",),
    "trl": ("train/global_step", "_step"),
    "hf_trainer": ("train/global_step", "_step"),
    "tensorboard": ("_step",),
}


def cross_check(
    trainer: str, steps: pd.DataFrame, summary: dict, tolerance: dict[str, float], unreadable: list[dict]
) -> list[dict]:
    if not summary:
        return unreadable or [no_record("no wandb-summary.json beside the logs")]
    step = next((int(summary[k]) for k in SUMMARY_STEP_KEYS.get(trainer, ("_step",)) if k in summary), None)
    if step is None:
        return [*unreadable, no_record("wandb-summary.json names no step (_step / train/global_step)")]
    return [*unreadable, compare_final_step(steps, summary, step, "wandb-summary.json", tolerance)]


def assemble(
    trainer: str,
    results: list[LogFileResult],
    found: Discovered,
    base: Path,
    per_file: dict | None = None,
    trainer_info: dict | None = None,
) -> ParsedLogs:
    import pandas as pd

    steps, duplicates = merge_chain(results, "steps")
    steps, alias_sources = apply_aliases(steps)
    steps, derived, reward_terms = derive_concepts(steps)
    alias_sources.update(derived)
    counts: dict[str, int] = {}
    tolerance: dict[str, float] = {}
    examples: list[str] = []
    serializations: set[str] = set()
    for res in chain_order(results):
        examples.extend(res.examples)
        serializations |= res.serializations
        for k, v in res.counts.items():
            counts[k] = counts.get(k, 0) + v
        for k, v in res.printed_tolerance.items():
            tolerance[k] = max(tolerance.get(k, 0.0), v)
    per_file = per_file or {r.name: line_ledger(r.counts) for r in chain_order(results)}
    malformed = {
        "count": counts.get("malformed", 0),
        "by_reason": {k.split("/", 1)[1]: v for k, v in counts.items() if k.startswith("malformed/")},
        "examples": examples[:10],
        # pairs dropped from lines that were otherwise parsed (a cut line keeps its step)
        "pairs_dropped": {k.split("/", 1)[1]: v for k, v in counts.items() if k.startswith("pairs_dropped/")},
    }
    summary, unreadable = best_wandb_summary(found.summaries, base)
    vllm = VllmAccumulator().to_frame()
    return ParsedLogs(
        steps=steps,
        evals=pd.DataFrame({"step": pd.Series(dtype="int64")}),
        startup={},
        vllm=vllm,
        vllm_summary=vllm_summary(vllm, 0),
        duplicates=duplicates,
        malformed=malformed,
        files=list(per_file),
        serializations=sorted(serializations),
        alias_sources=alias_sources,
        wandb_summary=summary,
        counts=counts,
        accounting={
            "lines": {**check_lines(f"{trainer} logs", counts), "per_file": per_file},
            "files": found.check(),
            "non_finite": non_finite_ledger(results),
        },
        cross_checks=cross_check(trainer, steps, summary, tolerance, unreadable),
        trainer=trainer,
        reward_terms=reward_terms,
        trainer_info=trainer_info or {},
    )
