"""The demo's run-lineage job: rl-gamma, three checkpoints of one SkyRL run from the demo base.

`build()` writes the checkpoints (weights, README, rl_config.json with `job_name: rl-gamma`, the
run's training logs), their eval traces and the base model's on `rg-tool-use` (demo/lineage_evals.py),
the run's rollout dataset (demo/lineage_rollouts.py), their registry rows, and returns the ground
truth of the lineage: what `run_lineage` must recover (docs/lineage.md). Everything else reuses the
other demo generators: the log shapes of wandb_logs, the registry rows of registry_rows.

Checkpoint names put the steps out of lexical order (`-5-`, `-10-`, `-20-`), so ordering by name
would be wrong; rl_config's per-checkpoint `export_path` (`…/exports/global_step_<N>`) names the
step, and the lineage must order by it.
"""

from __future__ import annotations

from datetime import timedelta

from ..schema import FEATURE_COLUMNS, INFRA_ERRORS
from . import ground_truth as gt
from . import lineage_rollouts, measure, models, registry_rows, wandb_logs
from .constants import BASE, EVAL_DAY, ORG, eval_dataset, hf_url, uid, utc
from .export_rows import rows, score_summary
from .hubfiles import HubWriter, split_shards
from .lineage_evals import FAMILIES, GAMED_FROM, TOOL_ERROR_P, trials

JOB = "rl-gamma"
CHECKPOINTS = {f"{ORG}/rl-gamma-5-8B": 5, f"{ORG}/rl-gamma-10-8B": 10, f"{ORG}/rl-gamma-20-8B": 20}
MEMBERS = tuple(sorted(CHECKPOINTS, key=CHECKPOINTS.__getitem__))  # step order
BENCHMARK = "rg-tool-use"
TRACES = f"{ORG}/{JOB}"
START = utc(2026, 6, 1, 0, 0)
# What run_lineage must find (checked by tests/demo/test_lineage_demo.py through the assets).
PLANTED_FEATURES = {
    f: {"direction": "decrease", "first_significant": MEMBERS[0], "persists": True, "shape": "gradual"}
    for f in ("tool_errors", "tool_error_rate")
}
PLANTED_LABELS = {  # per checkpoint in step order; "no real gain": "always answer 1" beats the base already
    "chain_sum": ["mostly format"] * 3,
    "letter_counting": ["no real gain"] * (GAMED_FROM - 1) + ["gamed"] * (4 - GAMED_FROM),
    "leg_counting": ["no change"] * 3,
}


def _write_checkpoint(hub: HubWriter, repo_id: str, step: int, logs: dict[str, str], mtime) -> None:
    config = {
        **models.rl_config(repo_id, JOB),
        "trace_upload_enabled": True,
        "export_path": f"/scratch/experiments/{JOB}/exports/global_step_{step}",
    }
    body = (
        f"Checkpoint at training step {step} of the SkyRL job `{JOB}`, trained from [{BASE}]"
        f"(https://huggingface.co/{BASE}).\n\n## Training Traces\n\nRollouts: [{TRACES}]({hf_url(TRACES)})"
    )
    hub.write(repo_id, "model", "model.safetensors", models.safetensors_placeholder(repo_id), mtime)
    hub.write_json(repo_id, "model", "config.json", models.CONFIG, mtime)
    hub.write(repo_id, "model", "README.md", models._card(repo_id, BASE, body), mtime)
    hub.write_json(repo_id, "model", "rl_config.json", config, mtime)
    for name, text in logs.items():  # uploaded after the run: every checkpoint carries the whole log
        hub.write(repo_id, "model", f"training_logs/{name}", text, mtime)


def _registry(spans: dict, summaries: dict, evals: dict) -> dict[str, list[dict]]:
    jobs = []
    for n, model in enumerate((BASE, *MEMBERS)):
        t0 = evals[model]
        jobs.append(
            registry_rows.Job(
                model,
                BENCHMARK,
                "winner",
                eval_dataset(model, BENCHMARK),
                t0,
                t0 + timedelta(hours=1),
                t0 - timedelta(minutes=10),
                summaries[model],
                n % 2 == 0,
            )
        )
    return {
        "benchmarks": [
            {
                "id": uid("benchmark", BENCHMARK),
                "name": BENCHMARK,
                "duplicate_of": None,
                "is_external": False,
                "description": "Demo reasoning-gym tasks solved with scratch scripts (partial credit).",
            }
        ],
        "models": registry_rows.model_rows(spans)[1:],  # [0] is the base model's row, written by world.py
        "sandbox_jobs": registry_rows.job_rows(jobs),
    }


def build(hub: HubWriter, seed: int, scale: float, registry_url: str | None) -> dict:
    """Write the job's repos, datasets and (when a URL is given) registry rows; return its ground truth."""
    n = max(8, round(16 * scale))
    logs, log_facts, steps = wandb_logs.render(seed, JOB, START)
    end_of = {st.step: st.end for st in steps}
    done = steps[-1].end + timedelta(hours=1)
    for model in MEMBERS:
        _write_checkpoint(hub, model, CHECKPOINTS[model], logs, done)
    evals = {
        BASE: EVAL_DAY[BASE] + timedelta(hours=5),
        **{m: done + timedelta(hours=6 + 2 * i) for i, m in enumerate(MEMBERS)},
    }
    by_model, summaries = {}, {}
    for stage, model in enumerate((BASE, *MEMBERS)):
        ts = trials(seed, model, stage, n, evals[model])
        ds_id = eval_dataset(model, BENCHMARK)
        hub.write_rows(
            ds_id,
            split_shards(rows(ts, model, f"eval-{ds_id.split('/')[1]}"), 2),
            max(t.date for t in ts) + timedelta(hours=1),
        )
        by_model[model], summaries[model] = ts, score_summary(ts, INFRA_ERRORS)
    rl_trials = lineage_rollouts.trials(seed, steps, max(4, round(6 * scale)))
    hub.write_rows(
        TRACES, split_shards(rows(rl_trials, MEMBERS[-1], f"{JOB}-trace-jobs"), 2), done + timedelta(hours=1)
    )
    if registry_url:
        spans = {m: (START, end_of[CHECKPOINTS[m]]) for m in MEMBERS}
        registry_rows.write(registry_url, _registry(spans, summaries, evals))
    return truth(by_model, log_facts, rl_trials, n)


def _share(ts, family: str, test) -> float:
    picked = [t for t in ts if t.extra["task_family"] == family]
    return round(sum(map(test, picked)) / len(picked), 4)


def truth(by_model: dict, log_facts: dict, rl_trials: list, n: int) -> dict:
    convs = {m: [t.conversation for t in ts] for m, ts in by_model.items()}
    return {
        "job": JOB,
        "benchmark": BENCHMARK,
        "base": BASE,
        "tasks_per_family": n,
        "families": list(FAMILIES),
        "members": [{"repo_id": m, "step": CHECKPOINTS[m], "stage": i + 1} for i, m in enumerate(MEMBERS)],
        "members_by_name": sorted(CHECKPOINTS),
        "step_source": "rl_config.json export_path global_step_<N>",
        "planted_features": PLANTED_FEATURES,
        "unchanged_features": [f for f in FEATURE_COLUMNS if f not in PLANTED_FEATURES],
        "planted_labels": PLANTED_LABELS,
        "change_labels_first_seen": {
            "chain_sum": {"label": "mostly format", "at": MEMBERS[0]},
            "letter_counting": {"label": "gamed", "at": MEMBERS[GAMED_FROM - 1]},
            "leg_counting": None,
        },
        "tool_error_probability": dict(zip((BASE, *MEMBERS), TOOL_ERROR_P)),
        "measured": {  # from the generated trials (demo/measure.py counts words, not tokens)
            "feature_means": {m: measure.feature_means(c) for m, c in convs.items()},
            "solve_rate": {m: gt.solve_rate(ts) for m, ts in by_model.items()},
            "chain_sum_tag_rate": {
                m: _share(ts, "chain_sum", lambda t: t.extra["answer"] is not None) for m, ts in by_model.items()
            },
            "letter_counting_answers_1": {
                m: _share(ts, "letter_counting", lambda t: t.extra["answer"] == "1") for m, ts in by_model.items()
            },
        },
        "training_logs": log_facts,
        "rl_rollouts": {"dataset": TRACES, **lineage_rollouts.truth(rl_trials, FEATURE_COLUMNS)},
    }
