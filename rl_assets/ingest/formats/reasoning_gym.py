"""reasoning-gym evaluation outputs, both layouts (docs/formats.md):

(a) one JSON per family: ``{name, category, config, system_prompt?, results[]}``;
(b) ``results.json``: ``{metadata{model, ...}, categories[{name, datasets[(a)...]}]}``.

Each completion is one attempt (attempt = completion index); a result without
``completions`` is one attempt built from ``model_answer``/``best_*`` fields. task_id is
``"<family>/<index>"`` with index = position in results = index in the seeded dataset.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from ..plan import Candidate
from ..report import SkipLog
from ..rows import date_or_note, first_str


def is_rg_file(data) -> bool:
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("results"), list) and "name" in data:
        return True
    return isinstance(data.get("categories"), list) and isinstance(data.get("metadata"), dict)


def looks_like_rg(data) -> bool:
    """Loosely an eval file (for files inside a folder of them): a malformed family file --
    results not a list, no name -- is read and its defect counted, not dropped as unrelated."""
    return isinstance(data, dict) and (
        "results" in data or "categories" in data or ("name" in data and "config" in data)
    )


def is_rg_summary(data) -> bool:
    return isinstance(data, dict) and "dataset_best_scores" in data


def _datasets(data: dict) -> Iterator[dict | None]:
    """Each dataset of a file; None for a category or dataset entry that is not an object."""
    if isinstance(data.get("categories"), list):
        for cat in data["categories"]:
            datasets = cat.get("datasets") if isinstance(cat, dict) else None
            if not isinstance(datasets, list):
                yield None
                continue
            for ds in datasets:
                yield {"category": cat.get("name"), **ds} if isinstance(ds, dict) else None
    else:
        yield data


def _summary(path: Path) -> dict:
    """summary.json next to (or one level above) per-family files carries model and time."""
    for d in (path.parent, path.parent.parent):
        f = d / "summary.json"
        if f.is_file():
            try:
                data = _json.loads(f.read_bytes())
                return data if isinstance(data, dict) else {}
            except ValueError:
                return {}
    return {}


def score_of(value) -> tuple[float | None, str | None]:
    """(reward, None) for a finite numeric score (number or numeric string), else (None,
    skip reason): bool, null, non-numeric text -> "non-numeric score"; inf/NaN -> "non-finite score"."""
    if value is None or isinstance(value, bool):
        return None, NON_NUMERIC
    if isinstance(value, (int, float)):
        try:
            reward = float(value)
        except OverflowError:
            return None, NON_FINITE
    else:
        try:
            reward = float(str(value).strip())
        except ValueError:
            return None, NON_NUMERIC
    return (reward, None) if math.isfinite(reward) else (None, NON_FINITE)


NON_NUMERIC = "non-numeric score"
NON_FINITE = "non-finite score"


class RgFiles:
    """trial_name = "<file path relative to the source root>:<family>/<index>#<completion>", so
    copies of one family file in several folders (easy/, hard/) never share a trial or
    trace_id. Rows name no benchmark; ingest_source fills the caller's ``benchmark`` or
    ``default_benchmark``."""

    kind = "reasoning_gym"
    default_benchmark = "reasoning_gym"

    def __init__(self, files: list[tuple[Path, dict]]) -> None:
        self.files = sorted(files, key=lambda fd: str(fd[0]))
        paths = [str(f) for f, _ in self.files]
        root = os.path.commonpath([os.path.dirname(p) for p in paths]) if paths else ""
        self.rel = {p: os.path.relpath(p, root) if root else p for p in paths}

    def units(self) -> list:
        return self.files

    def scan(self, unit, skips: SkipLog) -> Iterator[Candidate]:
        path, data = unit
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else _summary(path)
        date = date_or_note(meta.get("timestamp"), skips)
        k = 0
        rel = self.rel.get(str(path), path.name)
        for ds in _datasets(data):
            family = first_str(ds, "name") if ds is not None else None
            results = ds.get("results") if ds is not None else None
            if family is None or not isinstance(results, list):  # a whole family lost: one counted unit
                skips.find()
                skips.skip("dataset without name or results list", str(path))
                continue
            for i, item in enumerate(results):
                where = f"{path} {family} result {i}"
                comps = item.get("completions") if isinstance(item, dict) else None
                skips.find(len(comps) if isinstance(comps, list) and comps else 1)
                if not isinstance(item, dict):
                    skips.skip("result item is not an object", where)
                    continue
                if not isinstance(comps, list) or not comps:
                    comps = [
                        {
                            "model_answer": item.get("model_answer", item.get("best_model_answer")),
                            "full_model_response": item.get(
                                "full_model_response", item.get("best_full_model_response")
                            ),
                            "score": item.get("score", item.get("best_score")),
                        }
                    ]
                for j, comp in enumerate(comps):
                    if not isinstance(comp, dict):
                        skips.skip("completion is not an object", f"{where} completion {j}")
                        continue
                    payload = (ds, item, comp, meta, family, i)
                    yield Candidate(
                        unit,
                        k,
                        f"{where} completion {j}",
                        f"{family}/{i}",
                        trial_name=f"{rel}:{family}/{i}#{j}",
                        date=date,
                        attempt=j,
                        payload=payload,
                    )
                    k += 1

    def load(self, unit, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        for k in sorted(wanted):
            cand = wanted[k]
            try:
                built = _completion_row(cand)
            except Exception as exc:  # one completion of an odd shape: skipped, named
                skips.bad_row(exc, cand.where)
                continue
            if isinstance(built, str):
                skips.skip(built, cand.where)
                continue
            yield cand, built


def _completion_row(cand: Candidate) -> dict | str:
    """The row of one completion, or the skip reason."""
    ds, item, comp, meta, family, index = cand.payload
    cand.payload = None
    reward, bad = score_of(comp.get("score"))
    if bad is not None:
        return bad
    response = comp.get("full_model_response")
    question = item.get("question")
    messages = []
    if isinstance(ds.get("system_prompt"), str) and ds["system_prompt"]:
        messages.append({"role": "system", "content": ds["system_prompt"]})
    messages.append({"role": "user", "content": "" if question is None else str(question)})
    if response is not None:
        messages.append({"role": "assistant", "content": str(response)})
    answer = comp.get("model_answer")
    return {
        "_messages": messages,
        "reward": reward,
        "task_family": family,
        "task_index": index,
        "task_config": _json.dumps(ds.get("config") or {}),
        "question": None if question is None else str(question),
        "expected_answer": None if item.get("expected_answer") is None else str(item["expected_answer"]),
        "answer": None if answer is None else str(answer),
        "model": first_str(meta, "model"),
        "gen_settings": gen_settings(ds, meta),
    }


# Recorded generation settings, compared between the two sides (a change can masquerade as
# learning): (our name, where the file may record it, first found wins).
SETTINGS = (
    ("max_tokens", ("max_tokens",)),
    ("temperature", ("temperature",)),
    ("top_p", ("top_p",)),
    ("repeats_per_task", ("eval_repeats", "completions_per_prompt")),
    ("eval_git_hash", ("git_hash",)),
    ("provider", ("provider",)),
)


def gen_settings(ds: dict, meta: dict) -> str | None:
    """JSON of the settings the dataset entry or the run metadata recorded (None: none recorded);
    the system prompt as a short sha1 (it is long, and only equality matters)."""
    out = {}
    for name, keys in SETTINGS:
        for where in (ds, meta):
            found = next((where[k] for k in keys if where.get(k) is not None), None)
            if found is not None:
                out[name] = found
                break
    prompt = ds.get("system_prompt") or meta.get("system_prompt")
    if isinstance(prompt, str) and prompt:
        out["system_prompt_sha1"] = hashlib.sha1(prompt.encode()).hexdigest()[:12]
    return _json.dumps(out) if out else None
