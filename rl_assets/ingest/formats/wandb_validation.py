"""Validation generations as traces: a W&B run's validation tables -> normalized trace rows.

Spec: ``wandb-val:<folder>[@first|@last|@all|@<step>]`` (default ``all``). One trace row per
selected (round, sample): benchmark ``validation``, task_id ``val-<sha1 of the input>[:16]`` (the
same prompt in two rounds is the same task, so Q1 can pair ``@first`` with ``@last``),
episode = the round's step, trial_name ``round<step>/sample<i>``, reward = the logged score,
answer = the output, expected_answer = the label (when the table logs one), conversation =
[user input, assistant output].
Ledger: every sample the tables hold is found; samples of rounds the selector leaves out are
skipped by design; the reader's merges and skips (wandb_tables.py) are carried over.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from ..plan import Candidate
from ..report import IngestError, SkipLog
from .wandb_tables import NOT_VALIDATION, read_validation_tables, select_rounds

PREFIX = "wandb-val:"
SELECTORS = ("first", "last", "all")
NOT_SELECTED = "validation round not selected by the spec's round selector"


def parse_spec(spec: str) -> tuple[Path, str]:
    """``wandb-val:<folder>@<selector>`` -> (folder, selector); a path may itself hold '@'."""
    body = spec[len(PREFIX) :].strip()
    head, at, tail = body.rpartition("@")
    if at and (tail in SELECTORS or tail.isdigit()):
        return Path(head).expanduser(), tail
    return Path(body).expanduser(), "all"


def task_id_of(prompt: str) -> str:
    return "val-" + hashlib.sha1(prompt.encode("utf-8")).hexdigest()[:16]


class WandbValidation:
    kind = "wandb_validation"
    default_benchmark = "validation"

    def __init__(self, folder: Path, selector: str = "all") -> None:
        if not folder.exists():
            raise FileNotFoundError(f"validation tables folder {folder} does not exist")
        self.folder, self.selector = folder, selector

    def units(self) -> list:
        return [self.folder]

    def scan(self, unit, skips: SkipLog) -> Iterator[Candidate]:
        frame = read_validation_tables(unit)
        ledger = frame.attrs["ledger"]
        if not ledger.tables_read:
            raise IngestError(
                f"{unit}: no W&B validation-generation table (*.table.json with step and "
                f"input_i/output_i/score_i columns) found; not read: {ledger.tables_not_read or 'none'}"
            )
        for reason, files in ledger.tables_not_read.items():
            for f in files:  # another kind of table (e.g. training samples) holds no lost trace data
                skips.input_not_read(reason, f, lost=reason != NOT_VALIDATION)
        for _ in range(ledger.tables_read):
            skips.input_read()
        skips.find(ledger.found)
        skips.examples.extend(ledger.examples[: max(10 - len(skips.examples), 0)])  # where the reader skipped
        for reason, n in ledger.skipped.items():
            skips.counts[reason] = skips.counts.get(reason, 0) + n
        for reason, n in ledger.merged.items():
            skips.merged[reason] = skips.merged.get(reason, 0) + n
        try:
            chosen = select_rounds(sorted(set(frame["step"])), self.selector)
        except ValueError as exc:
            raise IngestError(f"{unit}: {exc}") from exc
        for k, rec in enumerate(frame.itertuples(index=False)):
            where = f"{unit} round {rec.step} sample {rec.sample}"
            if rec.step not in chosen:
                skips.skip(NOT_SELECTED, where, lost=False)
                continue
            yield Candidate(
                unit,
                k,
                where,
                task_id_of(rec.input),
                trial_name=f"round{rec.step}/sample{rec.sample}",
                episode=int(rec.step),
                payload=(rec.input, rec.output, float(rec.score), rec.label),
            )

    def load(self, unit, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        for k in sorted(wanted):
            cand = wanted[k]
            prompt, output, score, label = cand.payload
            cand.payload = None
            yield (
                cand,
                {
                    "_messages": [{"role": "user", "content": prompt}, {"role": "assistant", "content": output}],
                    "reward": score,
                    "question": prompt,
                    "answer": output,
                    "expected_answer": label,
                },
            )
