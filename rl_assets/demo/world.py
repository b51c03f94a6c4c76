"""build_world(): the whole demo (hub repos, registry rows, ground truth) from one seed.

Same seed -> byte-identical files. Rebuilding replaces only what the demo owns: the hub repos it
writes and its registry rows (deterministic ids; eval jobs by the demo's user name). Repos, models
and eval jobs a user added under the demo org stay.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from ..fileutil import atomic_write_text
from ..schema import INFRA_ERRORS
from . import ground_truth as gt
from . import (
    integrity_runs,
    legacy_logs,
    lineage_job,
    models,
    reasoning,
    registry_rows,
    rollouts,
    selection,
    terminal_evals,
    wandb_logs,
)
from .constants import (
    ALPHA,
    ALPHA_START,
    ALPHA_TRACES,
    BASE,
    BASE_TRAIN_END,
    BETA,
    BETA_START,
    JOB_NAMES,
    ORG,
    RG,
    RL_MODELS,
    TBM,
    UPLOADING,
    eval_dataset,
)
from .export_rows import Trial, rows, score_summary
from .hubfiles import HubWriter, split_shards

VERSION = 1


@dataclass
class DemoWorld:
    home: Path
    hub_dir: Path
    registry_url: str
    ground_truth_path: Path
    base_model: str = BASE
    models: list[str] = field(default_factory=lambda: [BASE, ALPHA, BETA, UPLOADING])
    partitions: list[str] = field(default_factory=lambda: list(RL_MODELS))  # the RL checkpoints to register
    files: list[Path] = field(default_factory=list)


def _paths(home: Path | None) -> tuple[Path, Path, str]:
    """An explicit `home` holds everything (hub, registry, ground truth); otherwise rl_assets.settings."""
    if home is not None:
        home = Path(home).resolve()
        home.mkdir(parents=True, exist_ok=True)
        return home, home / "hub", f"sqlite:///{home / 'registry.sqlite'}"
    from .. import settings

    return settings.home_dir(), settings.hub_dir(), settings.registry_url()


def build_world(home: Path | None = None, *, seed: int = 7, scale: float = 1.0, registry: bool = True) -> DemoWorld:
    home, hub_dir, url = _paths(home)
    hub = HubWriter(hub_dir)  # replaces each demo repo as it writes it; repos a user added stay
    n_tbm = max(10, round(40 * scale))
    n_rg = max(8, round(20 * scale))

    alpha_logs, alpha_facts, alpha_steps = wandb_logs.render(seed, JOB_NAMES[ALPHA], ALPHA_START)
    beta_logs, beta_facts = legacy_logs.render(seed, JOB_NAMES[BETA], BETA_START)
    log_facts = {ALPHA: alpha_facts, BETA: beta_facts}
    spans = {m: (f["time_span"]["start"], f["time_span"]["end"]) for m, f in log_facts.items()}
    spans[UPLOADING] = (spans[BETA][1] + timedelta(hours=2), spans[BETA][1] + timedelta(hours=20))

    models.write_base(hub, BASE_TRAIN_END + timedelta(hours=1))
    for model, files in ((ALPHA, alpha_logs), (BETA, beta_logs)):
        done = spans[model][1] + timedelta(hours=1)
        models.write_rl(hub, model, done)
        for name, text in files.items():
            hub.write(model, "model", f"training_logs/{name}", text, done)
    models.write_uploading(hub, spans[UPLOADING][1])

    # terminal-bench-mini: base first (RL attempt-0 traces fork from its actions)
    names = terminal_evals.tasks(seed, n_tbm)
    plan = terminal_evals.plan(seed, names)
    xss_task = next(t for t, f in sorted(plan[ALPHA]["flips"].items()) if f["direction"] == "up")
    base_first: dict = {}
    old_names = names[: max(3, n_tbm // 3)]
    tbm_trials: dict[tuple[str, str], list[Trial]] = {}
    for model in (BASE, ALPHA, BETA):
        tbm_trials[(model, "")] = terminal_evals.trials(
            seed, model, names, plan, base_first, xss_task if model == ALPHA else None
        )
    for model in (BASE, ALPHA):
        tbm_trials[(model, registry_rows.OLD)] = terminal_evals.trials(
            seed, model, old_names, plan, base_first, None, variant="old", day_offset=timedelta(days=-1)
        )
    rg_trials = {(m, ""): reasoning.trials(seed, m, n_rg) for m in (BASE, ALPHA, BETA)}
    for model in (BASE, ALPHA):
        rg_trials[(model, registry_rows.OLD)] = reasoning.trials(
            seed, model, n_rg, variant="old", n_tasks=max(3, n_rg // 3), day_offset=timedelta(days=-1)
        )

    summaries = {}
    for bench, table in ((TBM, tbm_trials), (RG, rg_trials)):
        for (model, sfx), ts in table.items():
            ds_id = eval_dataset(model, bench, sfx)
            episodes = terminal_evals.episode_level_trials(seed, model, ts) if bench == TBM else set()
            out = rows(ts, model, f"eval-{ds_id.split('/')[1]}", episodes)
            shards = split_shards(out, 2)
            if bench == TBM and model == ALPHA and not sfx:  # shards whose schemas differ
                shards[1] = [{**r, "trace_source": "main"} for r in shards[1]]
            hub.write_rows(ds_id, shards, max(t.date for t in ts) + timedelta(hours=1))
            summaries[(model, bench, sfx)] = score_summary(ts, INFRA_ERRORS)

    per_step = max(6, round(24 * scale))
    rl_trials = rollouts.trials(seed, alpha_steps, per_step)
    hub.write_rows(
        ALPHA_TRACES,
        split_shards(rows(rl_trials, ALPHA, f"{JOB_NAMES[ALPHA]}-trace-jobs"), 2),
        spans[ALPHA][1] + timedelta(hours=2),
    )

    jobs = registry_rows.plan_jobs(summaries)
    tables = {
        "benchmarks": registry_rows.benchmark_rows(),
        "models": registry_rows.model_rows(spans),
        "sandbox_jobs": registry_rows.job_rows(jobs),
    }
    if registry:
        registry_rows.write(url, tables)

    truth = {
        "version": VERSION,
        "seed": seed,
        "scale": scale,
        "org": ORG,
        "models": {"base": BASE, "rl": list(RL_MODELS), "skip": [UPLOADING]},
        "partitions": list(RL_MODELS),
        "base_model_of": {m: BASE for m in (ALPHA, BETA, UPLOADING)},
        "rl_trace_datasets": {ALPHA: ALPHA_TRACES, BETA: None},
        "q2_rl_temporal_applicable": {ALPHA: True, BETA: False},
        "benchmarks": {TBM: {"kind": "binary", "tasks": n_tbm}, RG: {"kind": "partial_credit", "tasks": 6 * n_rg}},
        "registry": {
            "model_ids": {r["name"]: r["id"] for r in tables["models"]},
            "benchmark_ids": {r["name"]: r["id"] for r in tables["benchmarks"]},
            "job_ids": {f"{j.model}|{j.benchmark}|{j.role}": j.id for j in jobs},
        },
        "eval_pairs": {m: selection.expected_pairs(jobs, m) for m in RL_MODELS},
        "eval_datasets": {f"{m}|{b}": eval_dataset(m, b) for m in (BASE, ALPHA, BETA) for b in (TBM, RG)},
        "eval_scores": {f"{m}|{b}|{s.lstrip('-') or 'current'}": v for (m, b, s), v in sorted(summaries.items())},
        TBM: {
            m: gt.tbm(tbm_trials[(BASE, "")], tbm_trials[(m, "")], plan[m]["flips"], xss_task if m == ALPHA else None)
            for m in RL_MODELS
        },
        RG: {m: gt.rg(seed, n_rg, rg_trials[(BASE, "")], rg_trials[(m, "")]) for m in RL_MODELS},
        "training_logs": log_facts,
        "rl_rollouts": {ALPHA: {"dataset": ALPHA_TRACES, **gt.rollouts(rl_trials)}},
        "time_spans": {
            "base_training": {"start": tables["models"][0]["training_start"], "end": BASE_TRAIN_END},
            **{f"{m}|rl_training": {"start": s, "end": e} for m, (s, e) in spans.items()},
        },
    }
    truth["lineage"] = lineage_job.build(hub, seed, scale, url if registry else None)  # rl-gamma: docs/lineage.md
    truth["reward_integrity"] = integrity_runs.write(hub, seed, spans[BETA][1] + timedelta(hours=3))  # verl, TRL
    gt_path = home / "demo" / "ground_truth.json"
    atomic_write_text(gt_path, json.dumps(truth, indent=2, sort_keys=True, default=_iso, ensure_ascii=False) + "\n")
    return DemoWorld(home, hub_dir, url, gt_path, files=sorted(hub.written))


def _iso(value) -> str:
    return value.isoformat()
