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
from ..toolkit_metrics import agreement_row

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


def _metric(metrics) -> tuple[str | None, float | None]:
    """(name, value) of the row's first numeric metric: the reward."""
    if isinstance(metrics, str):
        try:
            metrics = _json.loads(metrics)
        except ValueError:
            return None, None
    for name, value in (metrics or {}).items() if isinstance(metrics, dict) else ():
        if isinstance(value, bool) or (isinstance(value, (int, float)) and math.isfinite(value)):
            return str(name), float(value)
    return None, None


def results_of(path: Path) -> dict | None:
    """The results json of the same run: lighteval writes ``<out>/details/<model>/<time>/details_...``
    and ``<out>/results/<model>/results_<time>.json``; the nearest ancestor with a ``results`` folder
    holding ``results_<time>.json`` (one such file) is taken."""
    m = _NAME.match(path.name)
    if not m:
        return None
    for folder in path.parents:
        found = sorted((folder / "results").rglob(f"results_{m['time']}.json")) if (folder / "results").is_dir() else []
        if len(found) == 1:
            try:
                data = _json.loads(found[0].read_bytes())
            except (ValueError, OSError):
                return None
            return {"file": found[0].name, **data} if isinstance(data.get("results"), dict) else None
        if found:
            return None
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
        texts = resp.get("text") if isinstance(resp, dict) else None
        response = _first(texts)
        choices, gold = doc.get("choices") or [], doc.get("gold_index")
        specific, metrics, shots = _specific(doc.get("specific")), row.get("metric"), doc.get("fewshot_samples")
        shots = len(shots) if isinstance(shots, list) else None
    else:
        query, prompt = row.get("example"), row.get("full_prompt") or row.get("example")
        texts = row.get("predictions")
        response = _first(texts)
        choices, gold = row.get("choices") or [], row.get("gold_index")
        specific, metrics, shots = _specific(row.get("specifics")), row.get("metrics"), row.get("num_asked_few_shots")
        if not choices and row.get("gold"):
            choices, gold = list(row["gold"]), 0
    metric = _metric(metrics)
    gold_i = _first(gold)
    target = choices[gold_i] if isinstance(gold_i, int) and 0 <= gold_i < len(choices) else None
    extracted = _first(specific.get("extracted_predictions"))
    return {
        "question": None if query is None else str(query),
        "prompt": None if prompt is None else str(prompt),
        "response": None if response is None else str(response),
        "expected_answer": None if target is None else str(target),
        "answer": None if extracted is None else str(extracted),
        "reward": metric[1],
        "metric": metric[0],
        "few_shot": shots,
        # generations per document (pass@k metrics sample several): the row's metric is over all of them,
        # the response kept is the first, and a different count between sides is a settings difference
        "samples": len(texts) if isinstance(texts, (list, tuple)) else None,
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

    def __init__(self, files: list[Path]) -> None:
        super().__init__(files)
        self.metric: dict[str, str | None] = {}  # file -> the metric its rewards are

    def scan(self, path: Path, skips: SkipLog) -> Iterator[Candidate]:
        task, _ = task_and_shots(path)
        rel = self.rel.get(str(path), path.name)
        for i, row in _rows(path):
            skips.find()
            skips.saw_keys(path, row)
            yield Candidate(path, i, None, f"{task}/{i}", trial_name=f"{rel}:{i}")  # where: made on demand

    def load(self, path: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        for i, row in _rows(path):
            cand = wanted.get(i)
            if cand is not None:
                yield cand, self._row(path, row, skips)

    def stream(self, path: Path, skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        """Every candidate scan yields, with its row (ingest's path when planning changes nothing)."""
        task, _ = task_and_shots(path)
        rel = self.rel.get(str(path), path.name)
        for i, row in _rows(path):
            yield Candidate(path, i, None, f"{task}/{i}", trial_name=f"{rel}:{i}"), self._row(path, row, skips)

    def _row(self, path: Path, row: dict, skips: SkipLog) -> dict:
        task, shots = task_and_shots(path)
        got = build(row)
        self.metric.setdefault(str(path), got["metric"])
        if got["reward"] is None:
            skips.note(NOT_NUMERIC)
        messages = [{"role": "user", "content": got["prompt"] or ""}]
        if got["response"] is not None:
            messages.append({"role": "assistant", "content": got["response"]})
        few = got["few_shot"] if got["few_shot"] is not None else shots
        settings = {"few_shot": few} if few is not None else {}
        if got["samples"] and got["samples"] > 1:
            settings["samples_per_doc"] = got["samples"]
        return {
            "_messages": messages,
            "reward": got["reward"],
            "task_family": task,
            "question": got["question"],
            "expected_answer": got["expected_answer"],
            "answer": got["answer"],
            "gen_settings": _json.dumps(settings) if settings else None,
        }

    def toolkit_agreement(self, tally) -> list[dict]:
        """Per details file with its results json: the toolkit's ``results[<suite>|<task>|<shots>][<metric>]``
        against the mean reward of the rows written for that task, and its document count against
        ours. A task with several details files here is not compared (its rows are pooled)."""
        tasks = [task_and_shots(p)[0] for p in self.files]
        out = []
        for path, task in zip(self.files, tasks):
            results = results_of(path)
            m = _NAME.match(path.name)
            if results is None or m is None:
                continue
            fam = tally.families.get(task)
            metric = self.metric.get(str(path))
            toolkit = (results["results"].get(m["spec"]) or {}).get(metric)
            note = f"{results['file']}: {m['spec']} {metric}"
            if tasks.count(task) > 1:
                out.append(agreement_row(task, str(metric), toolkit, None, tolerance=0, note=note + " (several files)"))
                continue
            ours = fam.reward_sum / fam.scored if fam and fam.scored else None
            out.append(
                agreement_row(task, str(metric), toolkit, None if ours is None else ours, tolerance=1e-9, note=note)
            )
            config = (results.get("config_tasks") or {}).get(m["spec"].rsplit("|", 1)[0]) or {}
            if config.get("effective_num_docs") is not None and fam is not None:
                out.append(
                    agreement_row(
                        task,
                        "effective_num_docs",
                        config["effective_num_docs"],
                        fam.n_tasks,
                        tolerance=0,
                        note=results["file"],
                    )
                )
        return out
