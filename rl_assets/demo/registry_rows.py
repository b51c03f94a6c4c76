"""Registry rows (models, benchmarks, sandbox_jobs) that exercise every eval-resolution rule.

Per (model, benchmark) the "winner" is the Finished job with the newest ended_at. Decoys: an
older Finished rerun whose created_at is NEWER (backfill) pointing at an older dataset, a
Finished job with null ended_at (sorts oldest), and a Started job that is the newest of all.
Metrics alternate between the list-of-{name, value} and the flat-dict shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from .constants import (
    AGENT,
    AGENT_ID,
    ALPHA,
    BASE,
    BASE_TRAIN_END,
    BASE_TRAIN_START,
    BETA,
    EVAL_DAY,
    RG,
    TBM,
    UPLOADING,
    USERNAME,
    eval_dataset,
    hf_url,
    uid,
)
from .terminal_evals import TBM_OFFSET

BENCH_IDS = {TBM: uid("benchmark", TBM), RG: uid("benchmark", RG)}


@dataclass
class Job:
    model: str
    benchmark: str
    role: str  # winner | older_rerun | null_ended | started
    dataset: str | None
    started: datetime
    ended: datetime | None
    created: datetime
    summary: dict | None  # score_summary() of the dataset it points to
    list_metrics: bool

    @property
    def id(self) -> str:
        return uid("job", self.model, self.benchmark, self.role)

    @property
    def status(self) -> str:
        return "Started" if self.role == "started" else "Finished"


# Which decoys each (model, benchmark) gets, besides its winner.
DECOYS = {
    (BASE, TBM): ("null_ended",),
    (BASE, RG): ("older_rerun",),
    (BETA, TBM): (),
    (BETA, RG): (),
    (ALPHA, TBM): ("older_rerun", "null_ended", "started"),
    (ALPHA, RG): ("older_rerun", "null_ended", "started"),
}
OLD = "-old"  # dataset suffix of the stale runs decoys point at


def plan_jobs(summaries: dict[tuple[str, str, str], dict]) -> list[Job]:
    """summaries[(model, benchmark, suffix)] for the current ("") and stale (OLD) datasets."""
    jobs = []
    for n, ((model, bench), decoys) in enumerate(DECOYS.items()):
        t0 = EVAL_DAY[model] + (TBM_OFFSET if bench == TBM else timedelta(0))
        run = timedelta(hours=4 if bench == TBM else 1, minutes=30)
        cur, old = eval_dataset(model, bench), eval_dataset(model, bench, OLD)
        jobs.append(
            Job(
                model,
                bench,
                "winner",
                cur,
                t0,
                t0 + run,
                t0 - timedelta(minutes=10),
                summaries[(model, bench, "")],
                n % 2 == 0,
            )
        )
        for role in decoys:
            if role == "older_rerun":  # finished a day earlier, registered (backfilled) two days later
                jobs.append(
                    Job(
                        model,
                        bench,
                        role,
                        old,
                        t0 - timedelta(days=1),
                        t0 - timedelta(days=1) + run,
                        t0 + timedelta(days=2),
                        summaries[(model, bench, OLD)],
                        n % 2 == 1,
                    )
                )
            elif role == "null_ended":  # newest start, but a null ended_at sorts oldest
                jobs.append(
                    Job(
                        model,
                        bench,
                        role,
                        old,
                        t0 + run + timedelta(hours=1),
                        None,
                        t0 + run + timedelta(hours=1),
                        summaries[(model, bench, OLD)],
                        n % 2 == 0,
                    )
                )
            else:  # pre-created by the eval listener, still running: newest of all, never a score
                start = t0 + timedelta(hours=30)
                jobs.append(
                    Job(model, bench, role, eval_dataset(model, bench, "-pending"), start, None, start, None, False)
                )
    return jobs


def metrics(summary: dict | None, as_list: bool):
    if summary is None:
        return None
    acc, mean = summary["accuracy"], summary["mean"]
    if as_list:  # the current DB writer's shape (docs/formats.md, registry rows)
        return [
            {"name": "mean_drop_ei_reward", "value": acc},
            {"name": "accuracy_drop_ei_reward", "value": acc},
            {"name": "accuracy", "value": acc},
            {"name": "mean", "value": mean},
        ]
    return {"accuracy": acc, "mean": mean, "n_trials": summary["n_trials"]}


def benchmark_rows() -> list[dict]:
    return [
        {
            "id": BENCH_IDS[TBM],
            "name": TBM,
            "duplicate_of": None,
            "is_external": False,
            "description": "Demo agentic terminal benchmark (binary reward).",
        },
        {
            "id": BENCH_IDS[RG],
            "name": RG,
            "duplicate_of": None,
            "is_external": False,
            "description": "Demo reasoning-gym mix of six families (partial credit).",
        },
    ]


def model_rows(spans: dict[str, tuple[datetime, datetime]]) -> list[dict]:
    base_id = uid("model", BASE)
    rows: list[dict[str, object]] = [
        {
            "id": base_id,
            "name": BASE,
            "base_model_id": None,
            "creation_time": BASE_TRAIN_END + timedelta(hours=1),
            "training_start": BASE_TRAIN_START,
            "training_end": BASE_TRAIN_END,
            "training_type": "SFT",
            "training_status": "Finished",
            "duplicate_of": None,
            "agent_id": AGENT_ID,
            "training_parameters": {"epochs": 3, "learning_rate": 1e-5},
            "description": "Demo base model",
        }
    ]
    for model, (start, end) in spans.items():
        done = model != UPLOADING
        rows.append(
            {
                "id": uid("model", model),
                "name": model,
                "base_model_id": base_id,
                "creation_time": end + timedelta(minutes=30),
                "training_start": start,
                "training_end": end if done else None,
                "training_type": "RL",
                "training_status": "Finished" if done else "Running",
                "duplicate_of": None,
                "agent_id": AGENT_ID,
                "training_parameters": {"algorithm": "grpo", "n_samples_per_prompt": 4},
                "description": f"Demo RL checkpoint trained from {BASE}",
            }
        )
    return rows


def job_rows(jobs: list[Job]) -> list[dict]:
    out = []
    for j in jobs:
        s = j.summary or {}
        out.append(
            {
                "id": j.id,
                "created_at": j.created,
                "job_name": f"eval-{j.model.split('/')[1]}-{j.benchmark}-{j.role}",
                "username": USERNAME,
                "started_at": j.started,
                "ended_at": j.ended,
                "n_trials": s.get("n_trials", 0),
                "n_rep_eval": 3,
                "config": {
                    "agents": [{"name": AGENT, "model_name": f"hosted_vllm/{j.model}"}],
                    "datasets": [{"path": j.benchmark}],
                    "n_attempts": 3,
                },
                "metrics": metrics(j.summary, j.list_metrics),
                "stats": {k: s[k] for k in ("n_trials", "n_errors", "n_infra_errors", "exception_stats") if k in s}
                or None,
                "agent_id": AGENT_ID,
                "model_id": uid("model", j.model),
                "benchmark_id": uid("benchmark", j.benchmark),
                "hf_traces_link": hf_url(j.dataset) if j.dataset else None,
                "job_status": j.status,
            }
        )
    return out


def write(url: str, tables: dict[str, list[dict]]) -> None:
    """Replace the demo's rows (by their deterministic ids) and leave every other row alone."""
    from resources.registry import SqlRegistry

    reg = SqlRegistry(url)
    reg.create_all()
    reg.delete_where("sandbox_jobs", "id", [r["id"] for r in tables["sandbox_jobs"]])
    # demo jobs of an earlier seed or scale (other ids), but never a job a user registered for a demo model
    reg.delete_where(
        "sandbox_jobs",
        "id",
        [j["id"] for m in tables["models"] for j in reg.jobs_for_model(m["id"]) if j.get("username") == USERNAME],
    )
    for table in ("models", "benchmarks"):
        reg.delete_where(table, "id", [r["id"] for r in tables[table]])
    for table in ("benchmarks", "models", "sandbox_jobs"):
        reg.insert(table, tables[table])
