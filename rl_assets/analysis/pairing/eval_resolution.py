"""Registry rows -> the (baseline, post-RL) eval pair of a model. Pure: takes rows, returns dicts.

Rules (docs/original_pipeline.md "Eval-pair resolution", with its bugs fixed):
- only Finished jobs with a traces link and a benchmark count, unless told otherwise;
- newest wins per benchmark by ended_at, then started_at, then created_at, compared as
  datetimes (not strings), a missing timestamp sorting oldest;
- `latest` never pairs two different benchmarks; `benchmark` accepts an id or a name (names with
  hyphens included);
- the baseline time is the base model's training_end (then creation_time, then the RL model's
  training_start), so the two overlay markers do not collapse onto one point.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from rl_assets.schema import DATA_FILE_SUFFIXES
from rl_assets.values.masking import masked_args
from rl_assets.values.timestamps import TimestampError, parse_utc

SCORE_KEYS = ("accuracy", "mean_reward", "Mean", "MeanDropEI", "reward", "score", "pass_rate")
MODES = ("largest-delta", "largest-abs-delta", "latest", "benchmark")
_OLDEST = datetime.min.replace(tzinfo=UTC)
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
# a URL "dataset" ending like a data file would be taken for a local path by the trace reader
_FILE_SUFFIXES = DATA_FILE_SUFFIXES


class ResolutionError(ValueError):
    """The model cannot be resolved (unknown id, no base model, unknown benchmark …). Its message is
    masked: it quotes registry values (traces links) that can carry a credential."""

    def __init__(self, *args: object) -> None:
        super().__init__(*masked_args(args))


def parse_ts(value: object, where: str = "") -> datetime | None:
    """rl_assets.values.timestamps.parse_utc, failing as a ResolutionError (what the resolver's callers catch)."""
    try:
        return parse_utc(value, where)
    except TimestampError as exc:
        raise ResolutionError(str(exc)) from exc


def iso(value: object) -> str | None:
    ts = parse_ts(value)
    return ts.isoformat() if ts else None


def dataset_id_from_link(link: str | None) -> str | None:
    """`https://huggingface.co/datasets/org/name/tree/main` -> `org/name`; bare ids and local paths unchanged.

    A URL only ever names a Hub dataset: its query and fragment (where a `?token=` sits) are dropped,
    and a URL whose path gives no `org/name` (or names a data file, which would then pass for a local
    path) is refused.

    >>> dataset_id_from_link("/data/evals/after.jsonl")
    '/data/evals/after.jsonl'
    """
    if not link:
        return None
    link = link.strip()
    if link.startswith(("/", "~", "./", "../")):
        return link  # a local trace file or folder (`rldelta register-eval --traces ./traces.jsonl`)
    if "://" not in link:
        return link.removeprefix("datasets/").strip("/") or None
    after_host = link.split("://", 1)[1].split("/", 1)[1:]  # the path, query and fragment, host dropped
    parts = [p for p in re.split(r"[?#]", after_host[0] if after_host else "", maxsplit=1)[0].split("/") if p]
    if parts and parts[0] == "datasets":
        parts = parts[1:]
    dataset = "/".join(parts[:2])
    if len(parts) < 2 or not _HUB_ID.match(dataset) or dataset.lower().endswith(_FILE_SUFFIXES):
        raise ResolutionError(f"traces link {link!r} names no Hub dataset (expected https://<hub>/datasets/org/name)")
    return dataset


def job_score(job: dict[str, Any], score_key: str | None = None) -> float | None:
    """Score from sandbox_jobs.metrics (a list of {name, value} or a flat dict); bools are not scores."""
    metrics = job.get("metrics") or {}
    if isinstance(metrics, list):
        metrics = {m.get("name"): m.get("value") for m in metrics if isinstance(m, dict)}
    for key in (score_key,) if score_key else SCORE_KEYS:
        value = metrics.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def recency_key(job: dict[str, Any]) -> tuple[datetime, ...]:
    return tuple(
        parse_ts(job.get(k), f"sandbox_jobs[{job.get('id')}].{k}") or _OLDEST
        for k in ("ended_at", "started_at", "created_at")
    )


def usable_jobs(jobs: list[dict[str, Any]], include_unfinished: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    """Jobs that can be an eval side, newest first, plus notes on what was dropped and why."""
    kept, notes = [], []
    for job in jobs:
        if not include_unfinished and job.get("job_status") != "Finished":
            notes.append(
                f"ignored sandbox_jobs[{job.get('id')}]: status {job.get('job_status')!r} (only Finished counts)"
            )
        elif not job.get("hf_traces_link"):
            notes.append(f"ignored sandbox_jobs[{job.get('id')}]: no hf_traces_link")
        elif not job.get("benchmark_id"):
            notes.append(f"ignored sandbox_jobs[{job.get('id')}]: no benchmark_id")
        else:
            kept.append(job)
    return sorted(kept, key=recency_key, reverse=True), notes


def newest_per_benchmark(jobs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """First (= newest, given newest-first input) job per benchmark."""
    out: dict[str, dict[str, Any]] = {}
    for job in jobs:
        out.setdefault(job["benchmark_id"], job)
    return out


def pair_table(
    post_jobs: list[dict[str, Any]],
    base_jobs: list[dict[str, Any]],
    benchmark_names: dict[str, str],
    score_key: str | None = None,
) -> dict[str, Any]:
    """The matched / post-only / baseline-only table (what `rldelta list-evals` prints)."""
    post, base = newest_per_benchmark(post_jobs), newest_per_benchmark(base_jobs)
    rows: list[dict[str, Any]] = []
    for bench in sorted(set(post) | set(base)):
        p, b = post.get(bench), base.get(bench)
        ps, bs = (job_score(p, score_key) if p else None), (job_score(b, score_key) if b else None)
        rows.append(
            {
                "benchmark_id": bench,
                "benchmark": benchmark_names.get(bench, bench),
                "post_job_id": p and p["id"],
                "baseline_job_id": b and b["id"],
                "post_score": ps,
                "baseline_score": bs,
                "delta": ps - bs if ps is not None and bs is not None else None,
                "post_traces": p and dataset_id_from_link(p["hf_traces_link"]),
                "baseline_traces": b and dataset_id_from_link(b["hf_traces_link"]),
                "post_ended_at": p and iso(p.get("ended_at")),
                "baseline_ended_at": b and iso(b.get("ended_at")),
            }
        )
    # Largest delta first; pairs without a numeric delta (unscored jobs) last.
    matched = sorted(
        (r for r in rows if r["post_job_id"] and r["baseline_job_id"]),
        key=lambda r: math.inf if r["delta"] is None else -r["delta"],
    )
    return {
        "matched": matched,
        "post_only": [r for r in rows if r["post_job_id"] and not r["baseline_job_id"]],
        "baseline_only": [r for r in rows if r["baseline_job_id"] and not r["post_job_id"]],
    }


def choose_pair(
    table: dict[str, Any], post_jobs: list[dict[str, Any]], mode: str, benchmark_id: str | None
) -> tuple[dict[str, Any] | None, str]:
    """Pick one row of the pair table by the selection mode; returns (row or None, reason)."""
    matched = table["matched"]
    if mode == "benchmark":
        rows = [r for r in matched + table["post_only"] + table["baseline_only"] if r["benchmark_id"] == benchmark_id]
        return (rows[0] if rows else None), f"selection=benchmark: pinned benchmark={benchmark_id}"
    if mode in ("largest-delta", "largest-abs-delta"):
        scored = [r for r in matched if r["delta"] is not None]
        if scored:
            key = (lambda r: r["delta"]) if mode == "largest-delta" else (lambda r: abs(r["delta"]))
            best = max(scored, key=key)
            return (
                best,
                f"selection={mode}: ranked {len(scored)} matched pair(s); chose {best['benchmark']} with "
                f"delta={best['delta']:+.4f}",
            )
        mode_note = f"{mode}->latest (no matched scored pair)"
    else:
        mode_note = "latest"
    if not post_jobs:
        return None, f"selection={mode_note}: no usable post-RL eval job"
    newest = post_jobs[0]["benchmark_id"]
    rows = [r for r in matched + table["post_only"] if r["benchmark_id"] == newest]
    # Never fall back to a baseline on another benchmark: that pair would compare two yardsticks.
    return rows[0], f"selection={mode_note}: newest post-RL job is on {rows[0]['benchmark']}"
