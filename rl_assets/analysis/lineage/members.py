"""Which analysed checkpoints of one RL job enter its lineage, in step order, and why others do not.

Input: per model partition, the values its assets stored (`checkpoint`, `eval_pair`,
`behavioral_delta`, …; None when never materialized), as a mapping: the asset passes one that loads
each value the first time it is read, so only what the lineage reads is loaded. A checkpoint belongs to the job when its
stored manifest's `job_name` equals the job. It enters the lineage only if it can be compared
like with like: a matched eval pair, a valid Q1 result computed on exactly that eval pair, a
training step, and the lineage's pinned benchmark, base model and baseline eval dataset (one
baseline for every checkpoint, so their deltas differ only by the checkpoint). Everything else
is listed as excluded with its reason — the lineage never mixes benchmarks or bases.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, TypeVar

from rl_assets.analysis.lineage.steps import training_step
from rl_assets.values.handover import TraceTableRef
from rl_assets.values.results import AnalysisResult

R = TypeVar("R", bound=AnalysisResult)


def stored_as(values: Mapping[str, Any], kind: type[R]) -> R | None:
    """What `kind`'s asset stored for a member, read back as `kind`; None when it stored nothing (or an empty value)."""
    stored = values.get(kind.asset)
    return kind.from_stored(stored) if stored else None


def _problem(model: str, v: Mapping[str, Any]) -> str | None:
    """Why this member's stored results cannot be used at all (None when they can)."""
    pair, delta = v.get("eval_pair"), v.get("behavioral_delta")
    if not pair:
        return "eval_pair not materialized"
    if not (pair.get("post_rl_eval") and pair.get("baseline_eval")):
        return f"no matched eval pair ({pair.get('reason')})"
    if not delta:
        return "behavioral_delta not materialized"
    if delta.get("invalid_for_comparison"):
        return f"Q1 not comparable: {delta['invalid_for_comparison']}"
    sources = delta.get("sources") or {}
    used = ((sources.get("baseline") or {}).get("source"), (sources.get("post-RL") or {}).get("source"))
    if used != (pair["baseline_eval"], pair["post_rl_eval"]):
        return (
            f"behavioral_delta was computed on {used[1]} vs {used[0]}, but the current eval pair is "
            f"{pair['post_rl_eval']} vs {pair['baseline_eval']}: re-materialize it"
        )
    traces = v.get("post_rl_traces")
    now = traces.revision if isinstance(traces, TraceTableRef) else None
    revision = (sources.get("post-RL") or {}).get("revision")
    if now and revision and now != revision:
        return f"behavioral_delta read post-RL revision {revision[:12]}, post_rl_traces now holds {now[:12]}"
    return None


def _pin(candidates: list[dict[str, Any]], key: str, requested: str | None = None) -> str | None:
    """The value most candidates share (ties: the latest step's); `requested` wins when given."""
    if requested:
        return requested
    counts = Counter(c[key] for c in candidates)
    if not counts:
        return None
    top = max(counts.values())
    value: str | None = max((c for c in candidates if counts[c[key]] == top), key=lambda c: c["step"])[key]
    return value


def select_members(job: str, stored: Mapping[str, Mapping[str, Any]], benchmark: str | None = None) -> dict[str, Any]:
    """{"members": [...] in step order, "excluded": [...], "pinned": {...}} for one job."""
    excluded, candidates = [], []
    for model in sorted(stored):
        values = stored[model]
        manifest = values.get("checkpoint") or {}
        if manifest.get("job_name") != job:
            continue
        step, step_source = training_step(model, manifest.get("rl_config"))
        reason = _problem(model, values) or (None if step is not None else step_source)
        if reason:
            excluded.append({"repo_id": model, "step": step, "reason": reason})
            continue
        pair = values["eval_pair"]
        candidates.append(
            {
                "repo_id": model,
                "step": step,
                "step_source": step_source,
                "revision": manifest.get("revision"),
                "last_modified": manifest.get("last_modified"),
                "benchmark": str(pair.get("benchmark")),
                "base_model": pair.get("base_model_name"),
                "baseline_eval": pair["baseline_eval"],
                "post_rl_eval": pair["post_rl_eval"],
                "values": values,
            }
        )
    pinned = {"benchmark": _pin(candidates, "benchmark", benchmark)}
    rule = "requested" if benchmark else "the benchmark most checkpoints were evaluated on (ties: the latest step's)"
    same_bench = [c for c in candidates if c["benchmark"] == pinned["benchmark"]]
    pinned.update(base_model=_pin(same_bench, "base_model"), rule=rule)
    pinned["baseline_eval"] = _pin([c for c in same_bench if c["base_model"] == pinned["base_model"]], "baseline_eval")
    kept: dict[int, dict[str, Any]] = {}
    for c in candidates:
        for key, what in (
            ("benchmark", "evaluated on"),
            ("base_model", "compared with base"),
            ("baseline_eval", "baseline eval dataset"),
        ):
            if c[key] != pinned[key]:
                excluded.append(
                    {
                        "repo_id": c["repo_id"],
                        "step": c["step"],
                        "reason": f"{what} {c[key]!r}; this lineage is pinned to {pinned[key]!r}",
                    }
                )
                break
        else:
            other = kept.get(c["step"])
            if other is not None:
                newer, older = (c, other) if (c["last_modified"] or "") > (other["last_modified"] or "") else (other, c)
                excluded.append(
                    {
                        "repo_id": older["repo_id"],
                        "step": older["step"],
                        "reason": f"same training step as {newer['repo_id']} (the newer upload is kept)",
                    }
                )
                c = newer
            kept[c["step"]] = c
    members = [kept[s] for s in sorted(kept)]
    return {
        "job": job,
        "pinned": pinned,
        "members": members,
        "excluded": sorted(excluded, key=lambda e: (e["step"] is None, e["step"] or 0, e["repo_id"])),
    }
