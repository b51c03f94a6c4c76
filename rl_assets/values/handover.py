"""What one asset hands the next: small frozen values naming stored data, and their JSON form.

A hand-over value names where a table lies in the store and what it was built from; the table
itself never travels (resources/io_manager.py). Each kind is a frozen dataclass, so a reader
writes `baseline_traces.path`, not `baseline_traces["path"]`, and a misspelt field fails at once.

JSON form: the fields plus a type tag, `{"__type__": "TraceTableRef", ...}`. A value stored before
the tags (a plain dict) still loads: it becomes the one kind whose fields it holds (every required
field, no unknown key), else it stays a dict. An unknown tag is an error, never a silent dict.

Summaries that are only JSON for INDEX.md and the run lineage (behavioral_delta, learning_audit,
judge_verdicts, reward_integrity, ...), the checkpoint manifest and the eval pair (records the pure
analyses read field by field) stay dicts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

TAG = "__type__"


@dataclass(frozen=True)
class NotApplicable:
    """The asset does not apply to this model (no training_logs/, no RL rollout dataset, no dated
    rollouts): the reason, never an empty success."""

    applicable: ClassVar[bool] = False
    repo_id: str
    reason: str
    revision: str | None = None  # the Hub revision that was read, when one was


@dataclass(frozen=True)
class TraceTableRef:
    """A normalized trace table in the store (baseline_traces, post_rl_traces, rl_traces) and
    what it was ingested from (rl_assets/support/ingest_step.py)."""

    applicable: ClassVar[bool] = True
    path: str  # under the storage root; named by its content address
    rows: int
    source: str  # the dataset spec that was read (Hub repo or local path)
    rows_read: int | None = None
    skipped: Any = None  # the ingest's skip ledger (markdown)
    source_kind: str | None = None
    revision: str | None = None
    benchmark: str | None = None
    side: str | None = None
    max_rows: int | None = None
    token_source: str | None = None
    feature_summary: dict = field(default_factory=dict)
    data_version: str | None = None  # what the table depends on (source revision + knobs)
    accounting: dict = field(default_factory=dict)
    repo_id: str | None = None  # the model repo, for rl_traces

    def provenance(self) -> dict:
        """What a report names as the data it read: source, revision, rows, benchmark."""
        return {"source": self.source, "revision": self.revision, "rows": self.rows, "benchmark": self.benchmark}


@dataclass(frozen=True)
class TrainingLogsRef:
    """A model repo's training_logs/ pinned to a Hub revision: the Hub is the store, so the
    reference is the repo and revision, never a folder on one machine."""

    applicable: ClassVar[bool] = True
    repo_id: str
    revision: str
    training_logs_revision: str
    files: list = field(default_factory=list)
    save_every: int | None = None  # the checkpoint interval rl_config names, if any


@dataclass(frozen=True)
class StepTableRef:
    """The per-step training-metrics table in the store (training_metrics) and what downstream
    steps read without opening it: trainer, reward terms, best step, curves."""

    applicable: ClassVar[bool] = True
    steps_table: str
    trainer: str | None = None
    reward_terms: dict = field(default_factory=dict)  # reward term -> its kind (task, format, ...)
    n_steps: int | None = None
    training_logs_revision: str | None = None
    best_step: int | None = None
    curves: dict | None = None  # reward/entropy/KL/length per step, for the run lineage
    validation_generations: str | None = None  # a store table of W&B validation generations


@dataclass(frozen=True)
class FailureModeTableRef:
    """The failure_modes annotation table of one run in the store (one row per trace, both sides)
    and what behavioral_delta and the checks read without opening it: who labelled, the per-side
    category distributions and the LLM calls' outcome."""

    applicable: ClassVar[bool] = True
    path: str  # <storage>/tables/failure_modes/<slug>/<run id>.parquet (support/failure_modes_store.py)
    rows: int
    annotator: str  # the LLM model, or the offline heuristic's label
    prompt_version: str | None = None
    failed: int = 0  # rows left without a category (their call or item failed)
    coverage: dict = field(default_factory=dict)  # side -> share of its rows with a category (None: no rows)
    counts: dict = field(default_factory=dict)  # side -> category -> rows (analysis/q1/failure_modes.distribution)
    shares: dict = field(default_factory=dict)  # side -> category -> share
    shift: dict = field(default_factory=dict)  # category -> post-RL minus baseline share
    write_back_preflight: list = field(default_factory=list)  # eval repos checked writable before spending
    calls: dict = field(default_factory=dict)  # the LLM session's counters and spend
    call_failures: dict = field(default_factory=dict)  # analysis/judge/llm_failures.failure_summary


KINDS = {
    cls.__name__: cls for cls in (NotApplicable, TraceTableRef, TrainingLogsRef, StepTableRef, FailureModeTableRef)
}
# Fields that name a table in the store: the IO manager checks each lies under the storage root.
LOCATION_FIELDS = ("path", "steps_table", "validation_generations")


class UnknownHandover(ValueError):
    """A tagged value whose tag (or fields) this rldelta does not know."""


def is_handover(value: Any) -> bool:
    return type(value) in KINDS.values()


def encode(value: Any) -> dict:
    """The JSON-able form of a hand-over value: its fields and its type tag."""
    return {TAG: type(value).__name__, **dataclasses.asdict(value)}


def decode(data: Any) -> Any:
    """A JSON-loaded value back as what was stored: tagged dicts (at any depth) as their kind, an
    untagged top-level dict with exactly one kind's fields as that kind, anything else unchanged."""
    value = _tagged(data)
    if isinstance(value, dict):  # untagged: a tagged dict has become its kind
        matches = [cls for cls in KINDS.values() if _fits(cls, value)]
        if len(matches) == 1:
            return _build(matches[0], value)
    return value


def _tagged(data: Any) -> Any:
    if isinstance(data, list):
        return [_tagged(x) for x in data]
    if not isinstance(data, dict):
        return data
    inner = {k: _tagged(v) for k, v in data.items()}
    if TAG not in inner:
        return inner
    fields = dict(inner)
    kind = KINDS.get(fields.pop(TAG))
    if kind is None:
        raise UnknownHandover(f"unknown hand-over type {data[TAG]!r} (known: {', '.join(sorted(KINDS))})")
    if not _fits(kind, fields):
        raise UnknownHandover(f"a {kind.__name__} needs {sorted(_required(kind))}, has {sorted(fields)}")
    return _build(kind, fields)


def _required(cls) -> set[str]:
    missing = dataclasses.MISSING
    return {f.name for f in dataclasses.fields(cls) if f.default is missing and f.default_factory is missing}


def _fits(cls, data: dict) -> bool:
    """Every required field present, no unknown key; an `applicable` key (plain dicts carried one)
    must agree with the kind."""
    names = {f.name for f in dataclasses.fields(cls)}
    keys = set(data) - {"applicable"}
    if "applicable" in data and data["applicable"] != cls.applicable:
        return False
    return _required(cls) <= keys <= names


def _build(cls, data: dict):
    return cls(**{k: v for k, v in data.items() if k != "applicable"})
