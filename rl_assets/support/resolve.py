"""Look a model up in the registry and resolve its eval pair (used by the asset and the CLI)."""

from __future__ import annotations

from rl_assets.analysis.pairing.eval_resolution import (
    MODES,
    ResolutionError,
    choose_pair,
    iso,
    pair_table,
    parse_ts,
    usable_jobs,
)
from rl_assets.analysis.render.escape import md_text
from rl_assets.values.escape import md_table


def pick_model_row(rows: list[dict], model_id: str) -> tuple[dict, list[str]]:
    """Several `models` rows can share a name (siblings, duplicates): prefer the canonical one."""
    if not rows:
        raise ResolutionError(
            f"no row in the registry's models table with name={model_id!r}; "
            "register the model's eval jobs first (or check the id)"
        )
    notes = []
    if len(rows) > 1:
        notes.append(
            f"{len(rows)} models rows named {model_id}; preferring one that is not a duplicate, then RL, then newest"
        )
    epoch = parse_ts("1970-01-01T00:00:00+00:00")
    ranked = sorted(
        rows,
        key=lambda r: (
            r.get("duplicate_of") is None,
            r.get("training_type") == "RL",
            parse_ts(r.get("creation_time")) or epoch,
        ),
        reverse=True,
    )
    return ranked[0], notes


def resolve_eval_pair(
    registry,
    model_id: str,
    mode: str = "largest-delta",
    benchmark: str | None = None,
    score_key: str | None = None,
    include_unfinished: bool = False,
) -> dict:
    """Everything the eval_pair asset records: the chosen pair, the full table and the notes."""
    if mode not in MODES:
        raise ResolutionError(f"unknown eval selection {mode!r}; choose one of {', '.join(MODES)}")
    model, notes = pick_model_row(registry.models_by_name(model_id), model_id)
    base = registry.model_by_id(model["base_model_id"]) if model.get("base_model_id") else None
    if base is None:
        raise ResolutionError(
            f"model {model_id} has no base model in the registry (models.base_model_id is null or dangling)"
        )

    benchmark_names = {b["id"]: b["name"] for b in registry.benchmarks()}
    benchmark_id = None
    if mode == "benchmark":
        if not benchmark:
            raise ResolutionError("eval selection 'benchmark' needs a benchmark id or name (settings.eval_benchmark)")
        if benchmark in benchmark_names:
            benchmark_id = benchmark
        else:
            row = registry.benchmark_by_name(benchmark)
            if row is None:
                raise ResolutionError(
                    f"benchmark {benchmark!r} is neither a benchmark id nor a name in the benchmarks table"
                )
            benchmark_id = row["id"]

    post_jobs, post_notes = usable_jobs(registry.jobs_for_model(model["id"]), include_unfinished)
    base_jobs, base_notes = usable_jobs(registry.jobs_for_model(base["id"]), include_unfinished)
    notes += post_notes + base_notes
    table = pair_table(post_jobs, base_jobs, benchmark_names, score_key)
    row, reason = choose_pair(table, post_jobs, mode, benchmark_id)
    notes.append(f"eval pair selection: {reason}")

    baseline_ts, ts_source = None, None
    for source, value in (
        ("base model training_end", base.get("training_end")),
        ("base model creation_time", base.get("creation_time")),
        ("RL model training_start", model.get("training_start")),
    ):
        if value is not None:
            baseline_ts, ts_source = iso(value), source
            break
    notes.append(f"baseline_eval_ts <- {ts_source} = {baseline_ts}" if ts_source else "baseline_eval_ts unresolved")
    if model.get("training_end") is None:
        notes.append(
            f"models.training_end is null; post_rl_eval_ts not set (set it with `rldelta register-eval {model_id} "
            "--benchmark … --traces … --training-end <ISO 8601 time>`)"
        )

    return {
        "model_id": model_id,
        "registry_model_id": model["id"],
        "base_model_id": base["id"],
        "base_model_name": base["name"],
        "selection": mode,
        "benchmark_id": row and row["benchmark_id"],
        "benchmark": row and row["benchmark"],
        "post_job_id": row and row["post_job_id"],
        "baseline_job_id": row and row["baseline_job_id"],
        "post_score": row and row["post_score"],
        "baseline_score": row and row["baseline_score"],
        "delta": row and row["delta"],
        "post_rl_eval": row and row["post_traces"],
        "baseline_eval": row and row["baseline_traces"],
        "post_rl_eval_ts": iso(model.get("training_end")),
        "baseline_eval_ts": baseline_ts,
        "training_start": iso(model.get("training_start")),
        "reason": reason,
        "notes": notes,
        "table": table,
    }


def format_table(resolved: dict) -> str:
    """The matched / post-only / baseline-only table as markdown (UI metadata and the CLI)."""

    def fmt(x):
        return "—" if x is None else f"{x:.4f}"

    rows = []
    table = resolved["table"]
    for kind in ("matched", "post_only", "baseline_only"):
        for r in table[kind]:
            chosen = " ✅" if r["benchmark_id"] == resolved["benchmark_id"] else ""
            delta = "—" if r["delta"] is None else f"{r['delta']:+.4f}"
            rows.append(
                [
                    f"{md_text(r['benchmark'])}{chosen} ({kind.replace('_', '-')})",
                    fmt(r["post_score"]),
                    fmt(r["baseline_score"]),
                    delta,
                    md_text(r["post_traces"] or "—"),
                    md_text(r["baseline_traces"] or "—"),
                ]
            )
    return md_table(["benchmark", "post", "baseline", "delta", "post traces", "baseline traces"], rows, align="------")


def explicit_pair(model_id: str, why: str) -> dict:
    """The record when both sources are given explicitly and the registry cannot resolve the model."""
    keys = (
        "registry_model_id",
        "base_model_id",
        "base_model_name",
        "benchmark_id",
        "benchmark",
        "post_job_id",
        "baseline_job_id",
        "post_score",
        "baseline_score",
        "delta",
        "post_rl_eval",
        "baseline_eval",
        "post_rl_eval_ts",
        "baseline_eval_ts",
        "training_start",
    )
    return {
        "model_id": model_id,
        "selection": "explicit",
        **{k: None for k in keys},
        "reason": "selection=explicit: both eval sources given in settings",
        "notes": [f"registry could not resolve {model_id} ({why}); using the explicit sources"],
        "table": {"matched": [], "post_only": [], "baseline_only": []},
    }
