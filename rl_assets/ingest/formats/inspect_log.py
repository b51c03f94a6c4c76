"""Inspect (UK AISI ``inspect_ai``) eval logs, read from their documented format rather than through
inspect_ai's own reader: its wheel is 35 MB with ~40 dependencies (boto3, fastapi, textual,
tiktoken, ...), too heavy for a reader of two JSON shapes (docs/formats.md, "Inspect").

- ``.json`` log: one ``EvalLog`` document: ``version, status, eval`` (task, model, dataset,
  config, packages), ``plan`` (solver steps, generate ``config``), ``results`` (scores[] with
  ``metrics.accuracy.value``), ``samples[]``.
- ``.eval`` log: a zip archive of ``header.json`` (the EvalLog without samples) and one
  ``samples/<id>_epoch_<n>.json`` per sample and epoch (members deflated, or zstd in newer
  versions: the stdlib zipfile reads zstd only from Python 3.14, so those members are
  decompressed with pyarrow's zstd codec).

A sample is the attempt ``epoch - 1`` of the task ``<task>/<id>``, keyed by the content of its
``input``; reward = the first scorer's value (``C``/``I``/``P``/``N`` as Inspect's value_to_float:
1, 0, 0.5, 0; numbers as they are); answer = that score's ``answer``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from ..plan import Candidate, FileSet
from ..report import IngestError, SkipLog
from ..rows import first_str
from ..toolkit_metrics import agreement_row
from ..walk import read_bytes

KIND = "inspect_log"
LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
NOT_NUMERIC = "score value is not a number or C/I/P/N (kept, reward null)"
_SAMPLE = re.compile(r"^samples/.+\.json$")
_ZSTD = 93  # the zip compression method id of zstd


def is_log(data) -> bool:
    """An Inspect EvalLog document: ``eval`` naming its task, and ``version`` / ``status``."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("eval"), dict)
        and "task" in data["eval"]
        and ("version" in data or "status" in data)
    )


def _member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if info.compress_type != _ZSTD:
        return zf.read(info)
    import pyarrow as pa

    fh = zf.fp
    fh.seek(info.header_offset)
    local = fh.read(30)  # local file header: its name and extra lengths decide where the data starts
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    fh.seek(info.header_offset + 30 + name_len + extra_len)
    raw = fh.read(info.compress_size)
    return pa.decompress(raw, decompressed_size=info.file_size, codec="zstd").to_pybytes()


def read_log(path: Path) -> tuple[dict, list]:
    """(header: the EvalLog without samples, samples) of a ``.json`` or ``.eval`` log."""
    if path.name.lower().endswith(".eval"):
        try:
            with zipfile.ZipFile(path) as zf:
                names = {i.filename: i for i in zf.infolist()}
                if "header.json" not in names:
                    raise IngestError(f"{path}: an .eval archive without header.json (an unfinished log?)")
                header = _json.loads(_member(zf, names["header.json"]))
                samples = [_json.loads(_member(zf, names[n])) for n in sorted(names) if _SAMPLE.match(n)]
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise IngestError(f"{path}: unreadable Inspect .eval log: {exc}") from exc
        return header, samples
    try:
        data = _json.loads(read_bytes(path))
    except (ValueError, OSError) as exc:
        raise IngestError(f"{path}: not valid JSON: {exc}") from exc
    samples = data.pop("samples", None) or []
    return data, samples


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: {type: text, text} (images and others skipped)
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


def _input_text(value) -> str:
    if isinstance(value, list):
        return "\n".join(_text(m.get("content")) for m in value if isinstance(m, dict))
    return _text(value)


def _score(value) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return LETTERS.get(value.strip().upper())
    return None


def _scorer_names(header: dict, sample: dict) -> list[str]:
    listed = [s.get("name") for s in (header.get("results") or {}).get("scores") or [] if isinstance(s, dict)]
    return [n for n in listed if n] or list((sample.get("scores") or {}).keys())


def settings(header: dict) -> dict:
    """The generation settings and prompt a log records (plan config, eval config, solver steps)."""
    ev, plan = header.get("eval") or {}, header.get("plan") or {}
    config = {**(ev.get("model_generate_config") or {}), **(plan.get("config") or {})}
    out = {}
    for ours, theirs in (("temperature", "temperature"), ("max_tokens", "max_tokens"), ("top_p", "top_p")):
        if config.get(theirs) is not None:
            out[ours] = config[theirs]
    if config.get("stop_seqs") is not None:
        out["stop_sequences"] = config["stop_seqs"]
    steps = [s for s in plan.get("steps") or [] if isinstance(s, dict)]
    if steps:
        out["solvers"] = [s.get("solver") for s in steps]
        prompt = json.dumps([s.get("params") for s in steps], sort_keys=True, default=str)
        out["prompt_template_sha1"] = hashlib.sha1(prompt.encode()).hexdigest()[:12]
    epochs = (ev.get("config") or {}).get("epochs")
    if epochs not in (None, 1):
        out["repeats_per_task"] = epochs
    version = (ev.get("packages") or {}).get("inspect_ai")
    if version:
        out["eval_harness_version"] = f"inspect_ai {version}"
    return out


class InspectLogs(FileSet):
    kind = KIND
    default_benchmark = "inspect"

    def __init__(self, files: list[Path]) -> None:
        super().__init__(files)
        self.headers: dict[str, dict] = {}

    def scan(self, path: Path, skips: SkipLog) -> Iterator[Candidate]:
        header, samples = read_log(path)
        self.headers[str(path)] = header
        task = first_str(header.get("eval") or {}, "task") or path.stem
        rel = self.rel.get(str(path), path.name)
        for i, sample in enumerate(samples):
            skips.find()
            where = f"{path} sample {i + 1}"
            if not isinstance(sample, dict):
                skips.skip("sample is not an object", where)
                continue
            skips.saw_keys(path, sample)
            sid = first_str(sample, "id")
            if sid is None:
                skips.skip("sample without id", where)
                continue
            epoch = sample.get("epoch") if isinstance(sample.get("epoch"), int) else 1
            yield Candidate(
                path, i, where, f"{task}/{sid}", trial_name=f"{rel}:{sid}#e{epoch}", attempt=max(epoch - 1, 0)
            )

    def load(self, path: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        header, samples = read_log(path)
        task = first_str(header.get("eval") or {}, "task") or path.stem
        found = settings(header)
        for i, cand in sorted(wanted.items()):
            yield cand, self._row(header, samples[i], task, found, skips)

    def _row(self, header: dict, sample: dict, task: str, found: dict, skips: SkipLog) -> dict:
        names = _scorer_names(header, sample)
        score = (sample.get("scores") or {}).get(names[0]) if names else None
        value = score.get("value") if isinstance(score, dict) else None
        reward = _score(value)
        if reward is None:
            skips.note(NOT_NUMERIC)
        messages = [
            {"role": m.get("role") or "user", "content": _text(m.get("content"))}
            for m in sample.get("messages") or []
            if isinstance(m, dict)
        ]
        question = _input_text(sample.get("input"))
        target = sample.get("target")
        answer = score.get("answer") if isinstance(score, dict) else None
        return {
            "_messages": messages or [{"role": "user", "content": question}],
            "reward": reward,
            "task_family": task,
            "model": first_str(header.get("eval") or {}, "model"),
            "question": question,
            "expected_answer": None if target is None else target if isinstance(target, str) else _json.dumps(target),
            "answer": None if answer is None else str(answer),
            "gen_settings": _json.dumps(found) if found else None,
        }

    def toolkit_agreement(self, tally) -> list[dict]:
        """Per log: the first scorer's ``accuracy`` against the rows' mean, ``completed_samples``
        against the samples written."""
        out = []
        for path in self.files:
            header = self.headers.get(str(path)) or {}
            results = header.get("results") or {}
            task = first_str(header.get("eval") or {}, "task") or path.stem
            fam = tally.families.get(task)
            scores = [s for s in results.get("scores") or [] if isinstance(s, dict)]
            if not results or fam is None:
                continue
            if scores:
                metric = ((scores[0].get("metrics") or {}).get("accuracy") or {}).get("value")
                ours = fam.reward_sum / fam.scored if fam.scored else None
                key = f"{scores[0].get('name')} accuracy"
                out.append(
                    agreement_row(
                        task, key, metric, None if ours is None else round(ours, 6), tolerance=1e-6, note=path.name
                    )
                )
            if results.get("completed_samples") is not None:
                out.append(
                    agreement_row(
                        task,
                        "completed_samples",
                        results["completed_samples"],
                        fam.attempts,
                        tolerance=0,
                        note=path.name,
                    )
                )
        return out
