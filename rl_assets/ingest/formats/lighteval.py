"""lighteval per-sample details, ``details_<suite>|<task>|<few-shot>_<time>.parquet``, read with pyarrow
and chosen by the file's columns (docs/formats.md, "lighteval").

Two layouts: up to 0.9 a row is a ``Detail`` of flat columns (``example, instruction, full_prompt,
num_asked_few_shots, predictions, gold, choices, gold_index, metrics, specifics``); from 0.10 it is
``doc`` (the benchmark item: ``query, choices, gold_index, specific, ...``), ``model_response``
(``text``, ...) and ``metric`` (name -> value). A row is the task ``<task>/<row>`` (the details keep
the dataset's order and no id of their own), keyed by the content of its query. The reward is the
first numeric metric; the extracted answer is ``specifics``/``specific``'s ``extracted_predictions``
where the metric recorded one (math tasks), else not recorded -- the raw prediction is the
response, not an extraction.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from ..plan import Candidate, FileSet
from ..report import IngestError, SkipLog

KIND = "lighteval_details"
OLD = frozenset(("example", "predictions", "metrics"))
NEW = frozenset(("doc", "model_response", "metric"))
_NAME = re.compile(r"^details_(?P<spec>.+?)_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-:]+)\.parquet$")
NOT_NUMERIC = "no numeric metric in the row (kept, reward null)"


def is_details(columns) -> bool:
    names = set(columns)
    return OLD <= names or NEW <= names


def task_and_shots(path: Path) -> tuple[str, int | None]:
    """``details_lighteval|gsm8k|5_<time>.parquet`` -> ("gsm8k", 5); the file stem otherwise."""
    m = _NAME.match(path.name)
    parts = (m["spec"] if m else path.stem).split("|")
    if len(parts) >= 3 and parts[-1].isdigit():
        return parts[-2], int(parts[-1])
    return parts[-1] if len(parts) > 1 else parts[0], None


def _first(value):
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return None if isinstance(value, (list, tuple)) else value


def _metric(metrics) -> float | None:
    if isinstance(metrics, str):
        try:
            metrics = _json.loads(metrics)
        except ValueError:
            return None
    for value in (metrics or {}).values() if isinstance(metrics, dict) else ():
        if isinstance(value, bool) or (isinstance(value, (int, float)) and math.isfinite(value)):
            return float(value)
    return None


def _specific(value) -> dict:
    if isinstance(value, str):
        try:
            value = _json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def build(row: dict) -> dict:
    """The trace fields of one details row, either layout."""
    if "doc" in row and isinstance(row.get("doc"), dict):
        doc, resp = row["doc"], row.get("model_response") or {}
        query, prompt = doc.get("query"), doc.get("query")
        response = _first(resp.get("text") if isinstance(resp, dict) else None)
        choices, gold = doc.get("choices") or [], doc.get("gold_index")
        specific, metrics, shots = _specific(doc.get("specific")), row.get("metric"), doc.get("fewshot_samples")
        shots = len(shots) if isinstance(shots, list) else None
    else:
        query, prompt = row.get("example"), row.get("full_prompt") or row.get("example")
        response = _first(row.get("predictions"))
        choices, gold = row.get("choices") or [], row.get("gold_index")
        specific, metrics, shots = _specific(row.get("specifics")), row.get("metrics"), row.get("num_asked_few_shots")
        if not choices and row.get("gold"):
            choices, gold = list(row["gold"]), 0
    gold_i = _first(gold)
    target = choices[gold_i] if isinstance(gold_i, int) and 0 <= gold_i < len(choices) else None
    extracted = _first(specific.get("extracted_predictions"))
    return {
        "question": None if query is None else str(query),
        "prompt": None if prompt is None else str(prompt),
        "response": None if response is None else str(response),
        "expected_answer": None if target is None else str(target),
        "answer": None if extracted is None else str(extracted),
        "reward": _metric(metrics),
        "few_shot": shots,
    }


def _rows(path: Path) -> Iterator[tuple[int, dict]]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        i = 0
        for batch in pf.iter_batches(batch_size=256):
            for row in batch.to_pylist():
                yield i, row
                i += 1
    except (OSError, ValueError) as exc:
        raise IngestError(f"{path}: unreadable lighteval details parquet: {exc}") from exc


class LightevalDetails(FileSet):
    kind = KIND
    default_benchmark = "lighteval"

    def scan(self, path: Path, skips: SkipLog) -> Iterator[Candidate]:
        task, _ = task_and_shots(path)
        rel = self.rel.get(str(path), path.name)
        for i, row in _rows(path):
            skips.find()
            skips.saw_keys(path, row)
            yield Candidate(path, i, f"{path} row {i + 1}", f"{task}/{i}", trial_name=f"{rel}:{i}")

    def load(self, path: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        task, shots = task_and_shots(path)
        for i, row in _rows(path):
            cand = wanted.get(i)
            if cand is None:
                continue
            got = build(row)
            if got["reward"] is None:
                skips.note(NOT_NUMERIC)
            messages = [{"role": "user", "content": got["prompt"] or ""}]
            if got["response"] is not None:
                messages.append({"role": "assistant", "content": got["response"]})
            few = got["few_shot"] if got["few_shot"] is not None else shots
            yield (
                cand,
                {
                    "_messages": messages,
                    "reward": got["reward"],
                    "task_family": task,
                    "question": got["question"],
                    "expected_answer": got["expected_answer"],
                    "answer": got["answer"],
                    "gen_settings": _json.dumps({"few_shot": few}) if few is not None else None,
                },
            )
