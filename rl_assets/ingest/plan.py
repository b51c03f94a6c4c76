"""Two-pass planning shared by every adapter.

Pass 1 (adapter.scan) yields cheap Candidates (task, trial, episode, date, attempt) per row.
plan() then merges earlier episodes of each trial into its last one, numbers attempts that the
source did not record, merges or tells apart rows that share a trace_id key (dedup.py), and
applies max_rows (a counted, by-design skip). Pass 2 (adapter.load) builds full rows for the kept
candidates only: nothing but these small keys is held between the passes (a few hundred bytes a
row). Readers that can ``stream`` skip even that when planning would change nothing
(rl_assets/ingest/__init__.py, ``_plan_units``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from .dedup import dedup
from .report import SkipLog

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
REDUCED = "earlier episode of the same trial (kept the last)"
CAPPED = "beyond the max_rows cap"


@dataclass(slots=True)  # one per row found and kept for loading: slots halve its memory
class Candidate:
    unit: Any  # the file/dir the adapter reads the row from
    index: int  # position of the row inside the unit
    at: str | None  # "<file> row N ..." for messages; None: "<unit> row <index + 1>", made when asked
    task_id: str
    trial_name: str | None = None
    episode: int | None = None
    date: datetime | None = None
    attempt: int | None = None
    payload: Any = None  # adapter data already parsed in pass 1 (small sources only)
    notes: tuple = ()  # ledger notes counted only if the candidate is kept (e.g. a bad date)
    dup: int = 0  # > 0: a later row with this trial key and other content (joins its trace_id)

    # Messages are rare and the default string is ~100 bytes per row: built on demand, not held
    # for every row of a 100 MB source (bench/bench_eval_ingest.py).
    @property
    def where(self) -> str:
        return self.at if self.at is not None else f"{self.unit} row {self.index + 1}"

    @where.setter
    def where(self, value: str) -> None:
        self.at = value


class Adapter(Protocol):
    kind: str

    def units(self) -> list: ...

    def scan(self, unit, skips: SkipLog) -> Iterator[Candidate]: ...

    def load(self, unit, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]: ...


class StreamingAdapter(Adapter, Protocol):
    """An adapter that can also yield every row with its candidate in one read (lm-eval, lighteval)."""

    def stream(self, unit, skips: SkipLog) -> Iterator[tuple[Candidate, dict]]: ...


def plan(
    cands: list[Candidate], skips: SkipLog, *, keep_all_episodes: bool, max_rows: int | None, fingerprints=None
) -> list[Candidate]:
    """The candidates to load. Every candidate not returned is counted on ``skips`` (merged or
    skipped), so the ledger still balances. ``fingerprints(cands) -> {id(cand): hash}`` reads
    the content of rows whose trial key repeats."""
    kept = cands
    if not keep_all_episodes:
        last: dict[tuple, int] = {}
        for c in cands:
            if c.trial_name is not None and c.episode is not None:
                key = (c.task_id, c.trial_name)
                last[key] = max(last.get(key, c.episode), c.episode)
        kept = []
        for c in cands:  # ties (one episode twice) stay: dedup decides between them
            if c.trial_name is not None and c.episode is not None and c.episode < last[(c.task_id, c.trial_name)]:
                skips.merge(REDUCED)
            else:
                kept.append(c)
    _number_attempts(kept)
    kept = dedup(kept, skips, fingerprints)  # on the trace_id key, attempts numbered
    if max_rows is not None and len(kept) > max(0, int(max_rows)):
        for c in kept[max(0, int(max_rows)) :]:
            skips.skip(CAPPED, c.where, lost=False)
        kept = kept[: max(0, int(max_rows))]
    for c in kept:
        for reason in c.notes:
            skips.note(reason)
    return kept


def _number_attempts(cands: list[Candidate]) -> None:
    """Attempts the source did not record: per task, trials in (date, trial_name) order --
    undated trials after all dated ones -- numbered after any attempt numbers the source did
    record for that task. All rows of one trial (its episodes, with keep_all_episodes) share
    one attempt number: the trial's recorded one if any row has it, else the trial's number.
    A trial's date is the earliest date among its rows."""
    by_task: dict[str, dict] = {}
    top: dict[str, int] = {}
    recorded: dict[tuple, int] = {}
    for order, c in enumerate(cands):
        if c.attempt is None:
            trial = (c.task_id, c.trial_name) if c.trial_name is not None else (c.task_id, None, order)
            group = by_task.setdefault(c.task_id, {}).setdefault(trial, [order, None, []])
            if c.date is not None and (group[1] is None or c.date < group[1]):
                group[1] = c.date
            group[2].append(c)
        else:
            top[c.task_id] = max(top.get(c.task_id, -1), c.attempt)
            if c.trial_name is not None:
                recorded.setdefault((c.task_id, c.trial_name), c.attempt)
    for task, trials in by_task.items():
        items = sorted(trials.items(), key=lambda kv: (kv[1][1] is None, kv[1][1] or _EPOCH, kv[0][1] or "", kv[1][0]))
        k = top.get(task, -1) + 1
        for key, (_, _, members) in items:
            attempt = recorded.get(key)
            if attempt is None:
                attempt, k = k, k + 1
            for c in members:
                c.attempt = attempt


def digest(text: str) -> int:
    """A 64-bit digest of an identity string: 8 bytes kept per row where the string would cost ~100.
    Used where a collision only costs a slower path or one task counted once instead of twice
    (p ~ n^2 / 2^65: ~1e-10 at a million rows)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def simple(c: Candidate) -> bool:
    """A candidate plan() leaves as it is (bar attempt 0) when its task has no other candidate: no
    attempt, episode or date recorded, nothing to note, no payload."""
    return c.attempt is None and c.episode is None and c.date is None and not c.notes and c.payload is None


class Uncounted:
    """The ledger of a second pass over rows the first pass already counted: records nothing."""

    def find(self, n: int = 1) -> None: ...

    def skip(self, reason: str, where: str, lost: bool = True) -> None: ...

    def saw_keys(self, where, record) -> None: ...

    def note(self, reason: str) -> None: ...


class FileSet:
    """The files one toolkit reader reads, sorted, each also named relative to their common folder (the
    trial names the readers give stay short and the same wherever the folder was copied)."""

    def __init__(self, files: list[Path]) -> None:
        import os

        self.files = sorted(files, key=str)
        root = os.path.commonpath([str(f.parent) for f in self.files]) if self.files else ""
        self.rel = {str(f): os.path.relpath(f, root) if root else f.name for f in self.files}

    def units(self) -> list:
        return self.files
