"""What every training-log reader returns (SkyRL, verl, HF Trainer / TRL, TensorBoard): one ParsedLogs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd


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
