"""The eval pair each selection mode must pick, computed from the demo's own job list.

Rules (docs/contracts.md, docs/original_pipeline.md "Eval-pair resolution" with its bugs fixed):
only Finished jobs with a numeric accuracy count; newest first by (ended_at, started_at,
created_at) with nulls oldest; the first job per benchmark represents it; benchmark names
(hyphens included) resolve by name.
"""

from __future__ import annotations

from datetime import UTC, datetime

from .constants import BASE, BENCHMARKS
from .registry_rows import Job

_OLDEST = datetime.min.replace(tzinfo=UTC)


def _key(j: Job) -> tuple:
    return tuple(t or _OLDEST for t in (j.ended, j.started, j.created))


def representatives(jobs: list[Job], model: str) -> dict[str, Job]:
    ok = [j for j in jobs if j.model == model and j.status == "Finished" and j.summary is not None]
    out: dict[str, Job] = {}
    for j in sorted(ok, key=_key, reverse=True):
        out.setdefault(j.benchmark, j)
    return out


def _pair(post: Job | None, base: Job | None, bench: str) -> dict:
    ps = post.summary["accuracy"] if post and post.summary else None  # representatives have a summary
    bs = base.summary["accuracy"] if base and base.summary else None
    return {
        "benchmark": bench,
        "post_job_id": post.id if post else None,
        "baseline_job_id": base.id if base else None,
        "post_dataset": post.dataset if post else None,
        "baseline_dataset": base.dataset if base else None,
        "post_score": ps,
        "baseline_score": bs,
        "delta": round(ps - bs, 6) if ps is not None and bs is not None else None,
    }


def expected_pairs(jobs: list[Job], model: str) -> dict:
    post, base = representatives(jobs, model), representatives(jobs, BASE)
    by_bench = {b: _pair(post.get(b), base.get(b), b) for b in BENCHMARKS}
    scored = [p for p in by_bench.values() if p["delta"] is not None]
    newest = max(post.values(), key=_key)
    decoys = [j for j in jobs if j.model in (model, BASE) and j.role != "winner"]
    return {
        "largest-delta": max(scored, key=lambda p: p["delta"]),
        "latest": by_bench[newest.benchmark],
        "benchmark": by_bench,
        "must_not_pick_job_ids": sorted(j.id for j in decoys),
        "must_not_pick_datasets": sorted({j.dataset for j in decoys if j.dataset}),
    }
