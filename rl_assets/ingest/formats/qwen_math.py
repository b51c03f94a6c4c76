"""Qwen2.5-Math evaluation outputs (QwenLM/Qwen2.5-Math ``evaluation/math_eval.py`` and the forks
math-RL projects reuse), chosen by content (docs/formats.md, "Qwen2.5-Math evaluation").

One jsonl per benchmark, ``<output_dir>/<data_name>/<split>_<prompt_type>_<num_test_sample>_seed<seed>
_t<temperature>_s<start>_e<end>.jsonl``; a row per question: ``idx, question, gt_cot, gt``, dataset
fields, and one list entry per sample (``--n_sampling``): ``code`` (the response), ``pred`` (the
toolkit's extracted answer), ``report``, ``score`` (its verdict). Beside it ``<stem>_<prompt_type>
_metrics.json`` (``<stem>_metrics.json`` in forks): ``num_samples, num_scores, empty_samples, acc``.

Each sample is one attempt of the task ``<data_name>/<idx>`` (attempt = position in the lists);
the task key is the question's hash (rl_assets/values/task_identity.py), so the two sides pair by
content whatever order or subset each evaluated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from .._json import fingerprint
from ..jsonl import records
from ..plan import Candidate, FileSet
from ..report import SkipLog
from ..rows import first_str
from ..toolkit_metrics import agreement_row
from ..walk import read_bytes

KIND = "qwen_math_eval"
_NAME = re.compile(
    r"^(?P<split>[^_]+)_(?P<prompt_type>.+)_(?P<num_test_sample>-?\d+)_seed(?P<seed>-?\d+)"
    r"_t(?P<temperature>[0-9.]+)_s(?P<start>-?\d+)_e(?P<end>-?\d+)$"
)
NO_SAMPLE = "no sampled answer (code/pred empty)"
NO_IDX = "missing idx"
NO_SCORE = "sample without a score (kept, reward null)"
LISTS = ("code", "pred", "score", "report")


def is_row(rec) -> bool:
    """A Qwen2.5-Math output row: ``idx`` and ``gt`` with the per-sample ``pred`` or ``code`` list."""
    return isinstance(rec, dict) and "idx" in rec and "gt" in rec and ("pred" in rec or "code" in rec)


def is_metrics(data) -> bool:
    return isinstance(data, dict) and "acc" in data and "num_samples" in data


def metrics_beside(path: Path) -> Path | None:
    """The toolkit's ``<stem>[_<prompt_type>]_metrics.json`` beside an output file (the shortest
    such name: the file's own, not one of a longer-named sibling)."""
    stem = path.name.split(".jsonl")[0]
    found = sorted(
        (p for p in path.parent.glob(f"{glob_escape(stem)}*_metrics.json") if p.is_file()),
        key=lambda p: len(p.name),
    )
    return found[0] if found else None


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def settings_of(path: Path, n_samples: int | None) -> dict:
    """What the file name records (the toolkit writes its settings there) plus samples per question."""
    m = _NAME.match(path.name.split(".jsonl")[0])
    out = {}
    if m:
        out = {
            "prompt_template": m["prompt_type"],
            "temperature": float(m["temperature"]),
            "seed": int(m["seed"]),
            "split": m["split"],
        }
    if n_samples:
        out["repeats_per_task"] = n_samples
    return out


def _samples(rec: dict) -> int:
    return max((len(rec[k]) for k in LISTS if isinstance(rec.get(k), list)), default=0)


def _score(value) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _at(rec: dict, key: str, j: int):
    value = rec.get(key)
    if isinstance(value, list):
        return value[j] if j < len(value) else None
    return value if j == 0 else None  # a scalar (one sample written without a list)


class QwenMathFiles(FileSet):
    kind = KIND
    default_benchmark = "qwen2.5-math-eval"

    def scan(self, path: Path, skips: SkipLog) -> Iterator[Candidate]:
        family, rel, k = path.parent.name, self.rel.get(str(path), path.name), 0
        for i, rec, bad in records(path, skips):
            where = f"{path} row {i + 1}"
            n = _samples(rec) if isinstance(rec, dict) else 0
            skips.find(max(n, 1))  # one unit per sample; a row without samples is one unit
            if bad or not isinstance(rec, dict):
                skips.skip(bad or "row is not an object", where)
                continue
            skips.saw_keys(path, rec)
            idx = first_str(rec, "idx")
            if idx is None or n == 0:
                for _ in range(max(n, 1)):
                    skips.skip(NO_IDX if idx is None else NO_SAMPLE, where)
                continue
            for j in range(n):
                yield Candidate(
                    path,
                    k,
                    f"{where} sample {j}",
                    f"{family}/{idx}",
                    trial_name=f"{rel}:{idx}#{j}",
                    attempt=j,
                    payload=(i, j),
                )
                k += 1

    def fingerprints(self, path: Path, wanted: set[int]) -> dict[int, str]:
        """Content hashes of the samples at candidate indexes ``wanted`` (repeated idx only)."""
        out, k = {}, 0
        for _i, rec, bad in records(path):
            if bad or not isinstance(rec, dict) or first_str(rec, "idx") is None:
                continue
            for j in range(_samples(rec)):
                if k in wanted:
                    out[k] = fingerprint([rec.get("question"), rec.get("gt"), *(_at(rec, key, j) for key in LISTS)])
                k += 1
        return out

    def load(self, path: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        by_row: dict[int, list[Candidate]] = {}
        for c in wanted.values():
            by_row.setdefault(c.payload[0], []).append(c)
        last = max(by_row)
        for i, rec, _bad in records(path):
            if i > last:
                return
            for cand in by_row.get(i, ()):
                yield cand, self._row(path, rec, cand.payload[1], skips)

    def _row(self, path: Path, rec: dict, j: int, skips: SkipLog) -> dict:
        reward = _score(_at(rec, "score", j))
        if reward is None:
            skips.note(NO_SCORE)
        question, response, pred = rec.get("question"), _at(rec, "code", j), _at(rec, "pred", j)
        messages = [{"role": "user", "content": "" if question is None else str(question)}]
        if response is not None:
            messages.append({"role": "assistant", "content": str(response)})
        settings = settings_of(path, _samples(rec))
        return {
            "_messages": messages,
            "reward": reward,
            "task_family": path.parent.name,
            "question": None if question is None else str(question),
            "expected_answer": None if rec.get("gt") is None else str(rec["gt"]),
            "answer": None if pred is None else str(pred),
            "gen_settings": _json.dumps(settings) if settings else None,
        }

    # -- the toolkit's own record ---------------------------------------------------------
    def toolkit_agreement(self, tally) -> list[dict]:
        """Per output file with a ``_metrics.json`` beside it: its ``acc`` against rldelta's
        accuracy (percent) of the rows written for that benchmark, and its counts against ours."""
        out = []
        for path in self.files:
            found = metrics_beside(path)
            if found is None:
                continue
            try:
                metrics = _json.loads(read_bytes(found))
            except (ValueError, OSError):
                out.append(
                    agreement_row(path.parent.name, "acc", None, None, tolerance=0, note=f"{found.name}: not JSON")
                )
                continue
            fam = tally.families.get(path.parent.name)
            out.extend(_compare(path.parent.name, found.name, metrics if is_metrics(metrics) else {}, fam))
        return out


def _compare(family: str, source: str, metrics: dict, fam) -> list[dict]:
    if fam is None or not fam.scored:
        return [agreement_row(family, "acc", metrics.get("acc"), None, tolerance=0, note=f"{source}: no scored rows")]
    mean_all = 100.0 * fam.reward_sum / fam.scored
    mean_first = 100.0 * fam.first_sum / fam.first_scored if fam.first_scored else None
    acc = metrics.get("acc")
    # The toolkit's acc is the mean of the first sample per question (QwenLM's evaluate.py) or of every
    # sample (forks), rounded to one decimal: agree with either, within that rounding.
    best = mean_all
    note = "mean over every sample"
    if isinstance(acc, (int, float)) and mean_first is not None and abs(acc - mean_first) < abs(acc - mean_all):
        best, note = mean_first, "mean over the first sample per question"
    rows = [agreement_row(family, "acc", acc, round(best, 4), tolerance=0.05, note=f"{source}: {note}")]
    if "num_samples" in metrics:
        rows.append(
            agreement_row(family, "num_samples", metrics["num_samples"], len(fam.tasks), tolerance=0, note=source)
        )
    if "num_scores" in metrics:
        rows.append(agreement_row(family, "num_scores", metrics["num_scores"], fam.attempts, tolerance=0, note=source))
    return rows
