"""`rldelta register-eval`: one eval run of a model, recorded in the configured registry.

The eval-pair resolver reads what an eval team's tooling writes (`models`, `benchmarks`,
`sandbox_jobs`); a person trying rldelta on their own traces has no such tooling, so this writes
the same rows: the model (and its base model) when the registry does not know them yet, the
benchmark by name, and one `sandbox_jobs` row whose traces link is a Hub dataset id or a local
path. The baseline side of a pair is an eval of the base model, so registering the base model's
eval and the RL model's eval (with `--base-model`) is all a pair needs.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime
from pathlib import Path

from rl_assets.partitions import validate_repo_id

STATUSES = ("Finished", "Running", "Failed", "Pending", "Cancelled")  # only Finished ones are paired
USERNAME = "rldelta-register-eval"


class RegisterError(ValueError):
    """Input that cannot become a registry row; the message names the argument."""


def _utc(value: str | None, name: str) -> datetime:
    """`value` (ISO 8601; no offset = UTC) as a UTC time, now when not given."""
    if not value:
        return datetime.now(UTC).replace(microsecond=0)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise RegisterError(f"--{name} {value!r} is not an ISO 8601 time (e.g. 2026-05-01T12:00:00Z)") from exc
    try:  # converted here, once: year 1 at +14:00 is year 0 in UTC, which no datetime (nor registry) holds
        return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except OverflowError:
        raise RegisterError(f"--{name} {value!r} lies outside the calendar once converted to UTC") from None


def _stored_utc(value) -> datetime | None:
    """A time the registry holds, as an aware UTC time (SQLite hands back naive UTC)."""
    if not isinstance(value, datetime):
        return None
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def traces_link(traces: str) -> str:
    """A Hub dataset id as given, a Hub URL as its dataset id (a `?token=` in it is never stored), a
    local file or folder as an absolute path (it must exist)."""
    from rl_assets.analysis.pairing.eval_resolution import ResolutionError, dataset_id_from_link
    from rl_assets.ingest.formats.wandb_validation import PREFIX, parse_spec
    from rl_assets.ingest.spec import hub_dataset

    traces = traces.strip()
    if "://" in traces:
        try:
            return dataset_id_from_link(traces)
        except ResolutionError as exc:
            raise RegisterError(f"--traces: {exc}") from None
    if hub_dataset(traces):
        return traces
    if traces.startswith(PREFIX):  # validation rounds of a W&B run folder, e.g. wandb-val:./run@last
        folder, rounds = parse_spec(traces)
        if not folder.exists():
            raise RegisterError(f"--traces {traces!r}: the run folder {folder} does not exist")
        return f"{PREFIX}{folder.resolve()}@{rounds}"
    path = Path(traces).expanduser()
    if not path.exists():
        raise RegisterError(f"--traces {traces!r} is neither a Hub dataset id (org/name) nor an existing path")
    return str(path.resolve())


def _model_row(reg, name: str, base_id: str | None, new_rows: list[dict]) -> dict:
    """The registry row of `name`; a new one is appended to `new_rows` (written later, with the rest).
    Refuses to re-parent an existing model."""
    validate_repo_id(name)
    rows = reg.models_by_name(name)
    if rows:
        row = rows[0]
        if base_id and row.get("base_model_id") not in (None, base_id):
            raise RegisterError(
                f"model {name} is registered with base model id {row['base_model_id']}, "
                f"not {base_id}: fix the registry row rather than adding a second one"
            )
        if base_id and row.get("base_model_id") is None:
            raise RegisterError(
                f"model {name} is already registered without a base model; "
                "register the RL model's evals under its own repo id with --base-model"
            )
        return row
    row = {
        "id": str(uuid.uuid4()),
        "name": name,
        "base_model_id": base_id,
        "creation_time": datetime.now(UTC),
        "description": f"registered by {USERNAME}",
    }
    new_rows.append(row)
    return row


def _benchmark_row(reg, name: str, new_rows: list[dict]) -> dict:
    found = reg.benchmark_by_name(name) or reg.benchmark_by_id(name)
    if found:
        return found
    row = {"id": str(uuid.uuid4()), "name": name, "description": f"registered by {USERNAME}"}
    new_rows.append(row)
    return row


def _training_times(training_start: str | None, training_end: str | None) -> dict:
    """models.training_start / training_end as given (the post-RL marker of the overlay needs the end)."""
    return {
        k: _utc(v, k.replace("_", "-"))
        for k, v in (("training_start", training_start), ("training_end", training_end))
        if v
    }


def _in_order(earlier: tuple[str, datetime | None], later: tuple[str, datetime | None]) -> None:
    """Refuse `later` before `earlier`; each is (how the message names it, the time or None = unknown)."""
    if earlier[1] is not None and later[1] is not None and later[1] < earlier[1]:
        raise RegisterError(f"{later[0]} {later[1].isoformat()} is before {earlier[0]} {earlier[1].isoformat()}")


def _check_times(start: tuple, end: tuple, training: dict, model: dict) -> None:
    """The times this registration leaves the eval and its model with in order: eval start <= end, training
    start <= end, the eval not before the model's training began. `start`/`end` are (how a message names
    it, time); a training time not given in `training` is the model's stored one."""

    def pick(name: str, flag: str, what: str) -> tuple[str, datetime | None]:
        return (flag, training[name]) if name in training else (what, _stored_utc(model.get(name)))

    t_start = pick("training_start", "--training-start", "the model's stored training start")
    t_end = pick("training_end", "--training-end", "the model's stored training end")
    _in_order(start, end)
    _in_order(t_start, t_end)
    _in_order(("the model's training start", t_start[1]), start)


def _same_eval(reg, model: dict, bench: dict, link: str) -> dict | None:
    """The job already recording this eval (same model, benchmark and traces), if any."""
    return next(
        (
            j
            for j in reg.jobs_for_model(model["id"])
            if j.get("benchmark_id") == bench["id"] and j.get("hf_traces_link") == link
        ),
        None,
    )


def register_eval(
    reg,
    model_id: str,
    *,
    benchmark: str,
    traces: str,
    base_model: str | None = None,
    status: str = "Finished",
    started: str | None = None,
    ended: str | None = None,
    score: float | None = None,
    training_start: str | None = None,
    training_end: str | None = None,
) -> dict:
    """Write the eval run in one transaction, under the registry's write lock (concurrent registrations of
    one new model or benchmark would each find it missing and insert it); returns the `sandbox_jobs` row
    (with the model and benchmark ids it used) and `outcome`: registered, updated (same model, benchmark
    and traces: one row, its status/score/times refreshed) or unchanged."""
    if not hasattr(reg, "locked"):
        raise RegisterError(
            "register-eval writes to the SQL registry (SQLite or PostgreSQL by RLDELTA_REGISTRY_URL);"
            " with Supabase, add rows through the eval team's own tooling"
        )
    if status not in STATUSES:
        raise RegisterError(f"--status {status!r}: one of {', '.join(STATUSES)} (only Finished evals are paired)")
    if not benchmark.strip():
        raise RegisterError("--benchmark must name the benchmark (e.g. terminal-bench-mini)")
    if score is not None and not math.isfinite(score):
        raise RegisterError(f"--score {score}: not a finite number (the registry stores scores as JSON)")
    for name in (model_id, base_model):
        if name:
            validate_repo_id(name)
    link = traces_link(traces)
    end = _utc(ended or started, "ended" if ended else "started")
    start = _utc(started, "started") if started else end if ended else _utc(None, "started")
    times = _training_times(training_start, training_end)
    with reg.locked():  # from the first read to the write: another registration waits
        new_models, new_benchmarks = [], []
        base_id = _model_row(reg, base_model, None, new_models)["id"] if base_model else None
        model = _model_row(reg, model_id, base_id, new_models)
        bench = _benchmark_row(reg, benchmark.strip(), new_benchmarks)
        known = _same_eval(reg, model, bench, link)
        # what the eval's row will hold: a time not given is the stored one (a known eval), else as computed above
        stored = known or {}
        _check_times(
            ("--started", start)
            if started or not known
            else ("the eval's stored start", _stored_utc(stored.get("started_at"))),
            ("--ended", end)
            if ended or started or not known
            else ("the eval's stored end", _stored_utc(stored.get("ended_at"))),
            times,
            model,
        )
        updates = {"models": {model["id"]: times}} if times and model not in new_models else {}
        model.update(times)
        values = {
            "started_at": start,
            "ended_at": end,
            "job_status": status,
            "metrics": {"accuracy": score} if score is not None else None,
        }
        # a default "now" is no new fact about an eval registered before: only given times update one
        given = {"started_at": started, "ended_at": ended or started}
        values = {k: v for k, v in values.items() if given.get(k, True)}
        if known is None:
            job = {
                "id": str(uuid.uuid4()),
                "created_at": datetime.now(UTC),
                "job_name": f"eval-{model_id}-{bench['name']}",
                "username": USERNAME,
                "started_at": start,
                "ended_at": end,
                "model_id": model["id"],
                "benchmark_id": bench["id"],
                "hf_traces_link": link,
                **values,
            }
            outcome = "registered"
        else:
            changed = {k: v for k, v in values.items() if known.get(k) != v}
            job = {**known, **changed}
            updates.setdefault("sandbox_jobs", {})[known["id"]] = changed
            outcome = "updated" if changed or updates.get("models") else "unchanged"
        reg.write(
            {"models": new_models, "benchmarks": new_benchmarks, "sandbox_jobs": [] if known else [job]},
            {t: {i: v for i, v in rows.items() if v} for t, rows in updates.items()},
        )
        return {
            **job,
            "model": model_id,
            "base_model": base_model or None,
            "benchmark": bench["name"],
            "outcome": outcome,
        }
