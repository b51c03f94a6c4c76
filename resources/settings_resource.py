"""Per-run analysis knobs, shared by every asset so a run applies them the same way everywhere."""

from __future__ import annotations

import dagster as dg


class AnalysisSettings(dg.ConfigurableResource):
    """Knobs a user sets per run (launchpad `resources.settings.config`) or per deployment."""

    max_rows: int | None = None  # per-source row cap for quick looks (applied at ingest, all sources)
    tokenizer: str | None = None  # None = the offline default tokenizer named in every report
    n_boot: int = 2000  # bootstrap resamples for every interval
    seed: int = 0  # seeds every sampler (bootstrap, random pair probes)
    bin_hours: float = 4.0  # Q2 temporal bins and the Q3 overlay share these UTC bin edges
    context_bins: list[int] = [0, 8192, 16384, 32768, 65536, 131072]
    pair_top_n: int = 25  # Q3 pairs rendered
    eval_selection: str = "largest-delta"  # largest-delta | largest-abs-delta | latest | benchmark
    eval_benchmark: str | None = None  # benchmark id or name for `benchmark` mode
    eval_score_key: str | None = None  # sandbox_jobs.metrics key that ranks deltas
    # Explicit sources win over the registry (the original's "CLI wins" rule): a Hub dataset id,
    # hf:org/name@revision, or a local path (parquet, jsonl, json, Harbor job folder, …).
    baseline_eval: str | None = None
    post_rl_eval: str | None = None
    baseline_eval_ts: str | None = None  # ISO timestamps for the Q3 overlay markers
    post_rl_eval_ts: str | None = None
    include_unfinished_jobs: bool = False  # the resolver uses Finished eval jobs only unless set
    rl_traces_orgs: list[str] = []
    # Task-id normalisation for pairing the sides (case, prefix, suffix, version: rl_assets/analysis/pairing/pairs.py);
    # never applied unless named here. The reports' near-miss line says which rules would pair most ids.
    task_id_normalisation: list[
        str
    ] = []  # where to look for <org>/<job_name> RL-trace datasets (model's org is always tried last)
