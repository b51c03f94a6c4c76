"""What the sensors decide, as pure functions over listings and cursors (no Dagster, no I/O).

Sensors only decide: add partitions, request runs, keep a small JSON cursor. The cursor maps a
repo id to the fingerprint last acted on, so a tick's work is proportional to what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rl_assets.partitions import InvalidRepoId, validate_repo_id

LOGS_PREFIX = "training_logs"


class InspectError(RuntimeError):
    """Looking at one repo failed (hub or registry error): skip it this tick, retry next tick."""


@dataclass
class Decision:
    """The outcome of one tick: partitions to add, runs to request, skips with reasons."""

    new_partitions: list[str] = field(default_factory=list)
    runs: list[tuple[str, str]] = field(default_factory=list)  # (partition key, run_key)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (repo id, reason)
    cursor: dict[str, str] = field(default_factory=dict)


def decide_checkpoints(
    listing: list[tuple[str, str]],
    cursor: dict[str, str],
    inspect: Callable[[str], tuple[str | None, str]],
    analysed: Callable[[str], str | None],
) -> Decision:
    """New or changed model repos -> partitions and runs.

    `listing` is (repo id, listing revision) pairs, cheap to get for every repo; `inspect(repo)`
    is called only for repos whose listing revision changed and returns (checkpoint fingerprint
    without training_logs/, "") to analyse, or (None, reason) to skip. A logs-only upload changes the listing revision
    but not the fingerprint, so it requests nothing here (the training-logs sensor handles it).
    `analysed(repo)` is the fingerprint the `checkpoint` asset was last materialized with (None if
    never), so a restarted sensor does not re-run models that are already analysed.
    Cursor values are "<listing rev>|<fingerprint or 'skipped'>".
    """
    decision = Decision(cursor=dict(cursor))
    for repo_id, listing_rev in listing:
        previous = cursor.get(repo_id, "")
        if previous.split("|", 1)[0] == listing_rev:
            continue
        try:
            validate_repo_id(repo_id)
        except InvalidRepoId as exc:
            decision.skipped.append((repo_id, str(exc)))
            decision.cursor[repo_id] = f"{listing_rev}|invalid"
            continue
        try:
            fingerprint, reason = inspect(repo_id)
        except InspectError as exc:
            decision.skipped.append((repo_id, f"{exc} (will retry next tick)"))
            continue  # cursor untouched: the same listing revision is looked at again
        if fingerprint is None:
            decision.skipped.append((repo_id, reason))
            decision.cursor[repo_id] = f"{listing_rev}|skipped"
            continue
        decision.cursor[repo_id] = f"{listing_rev}|{fingerprint}"
        last = analysed(repo_id)
        if last is None:
            decision.new_partitions.append(repo_id)
        if last == fingerprint or previous.split("|", 1)[-1] == fingerprint:
            continue  # only training_logs/ (or nothing that matters) changed
        decision.runs.append((repo_id, f"{repo_id}@{fingerprint[:12]}"))
    return decision


def decide_fingerprints(
    current: Mapping[str, str | None], cursor: dict[str, str], reference: Mapping[str, str | None], label: str
) -> Decision:
    """Known partitions whose fingerprint moved away from a reference -> runs.

    `reference` is what the fingerprint is compared with: the data version the asset was last
    materialized with (training logs), or the cursor itself (eval jobs). No reference means the
    partition was never analysed: its first full analysis is the checkpoint sensor's job. The
    cursor stops a second request for the same fingerprint while the first run is in flight.
    """
    decision = Decision(cursor=dict(cursor))
    for repo_id, fingerprint in current.items():
        if fingerprint is None:
            continue
        decision.cursor[repo_id] = fingerprint
        ref = reference.get(repo_id)
        if ref is not None and ref != fingerprint and cursor.get(repo_id) != fingerprint:
            decision.runs.append((repo_id, f"{repo_id}@{label}:{fingerprint[:12]}"))
    return decision


def is_base_model(rows: list[dict]) -> bool:
    """Registry rows say this is a base model (known, and no row names a base): nothing to compare."""
    return bool(rows) and not any(r.get("base_model_id") for r in rows)


def eval_jobs_fingerprint(jobs: list[dict]) -> str:
    """A fingerprint of a model's Finished eval jobs: changes when one finishes or is re-run."""
    import hashlib

    finished = sorted(
        f"{j.get('id')}:{j.get('ended_at')}:{j.get('hf_traces_link')}"
        for j in jobs
        if j.get("job_status") == "Finished"
    )
    return hashlib.sha1("\n".join(finished).encode()).hexdigest()
