"""lm-evaluation-harness ``--log_samples`` outputs (and evalchemy, built on it), chosen by content
(docs/formats.md, "lm-evaluation-harness").

``samples_<task>_<time>.jsonl``: a row per document and filter -- ``doc_id, doc, target, arguments,
resps, filtered_resps, filter, metrics, doc_hash, prompt_hash, target_hash`` and one value per metric
(``exact_match: 1.0``; a corpus-level metric such as span F1 writes its ``[gold, pred]`` items instead).
Beside it ``results_<time>.json`` (the same time): the toolkit's metrics (``results.<task>["<metric>,
<filter>"]``) and settings (``configs.<task>``: ``num_fewshot``, ``generation_kwargs``, the prompt
template ``doc_to_text``; ``chat_template_sha``, ``system_instruction_sha``).

A document is the task ``<task>/<doc_id>``, keyed by the content of its ``doc`` (the benchmark item,
whatever template rendered it). One filter per file is kept (the first the file names): the harness
writes each document once per filter, and those rows are one answer read two ways, not two attempts.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from ..jsonl import records
from ..plan import Candidate, FileSet
from ..report import SkipLog
from ..rows import first_str
from ..toolkit_metrics import agreement_row

KIND = "lm_eval_samples"
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-]+?)\.jsonl")
OTHER_FILTER = "row of another lm-eval filter (one filter kept per file)"
NO_DOC_ID = "missing doc_id"
NOT_NUMERIC = "per-sample metric is not a number (kept, reward null)"
PREFERRED = ("exact_match", "acc", "acc_norm", "pass@1", "em")


def is_row(rec) -> bool:
    return isinstance(rec, dict) and "doc_id" in rec and ("resps" in rec or "filtered_resps" in rec)


def is_results(data) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("results"), dict)
        and ("configs" in data or "n-shot" in data or "versions" in data)
    )


def name_parts(path: Path) -> tuple[str | None, str | None]:
    m = _NAME.match(path.name)
    return (m["task"], m["time"]) if m else (None, None)


def results_beside(path: Path) -> dict | None:
    """The results json of the same run: a JSON file beside the samples whose name ends with the
    samples' timestamp (``results_<time>.json``, or a renamed copy) and that holds the task."""
    task, time = name_parts(path)
    if time is None:
        return None
    for cand in sorted(path.parent.glob(f"*{time}.json")):
        try:
            data = _json.loads(cand.read_bytes())
        except (ValueError, OSError):
            continue
        if is_results(data) and task in data["results"]:
            return {"file": cand.name, **data}
    return None


def _flat(value):
    while isinstance(value, list) and value:
        value = value[0]
    return value


def _prompt_and_kwargs(arguments) -> tuple[str | None, dict]:
    """(prompt, generation kwargs) of the first request: the 0.4 dict shape ``{gen_args_0: {arg_0,
    arg_1}}`` or the older list shape ``[[prompt, kwargs], ...]``."""
    first = None
    if isinstance(arguments, dict) and arguments:
        req = next(iter(arguments.values()))
        first = [req.get("arg_0"), req.get("arg_1")] if isinstance(req, dict) else None
    elif isinstance(arguments, list) and arguments:
        first = arguments[0] if isinstance(arguments[0], list) else [arguments[0], None]
    if not first:
        return None, {}
    prompt = first[0] if isinstance(first[0], str) else None
    kwargs = first[1] if len(first) > 1 and isinstance(first[1], dict) else {}
    return prompt, kwargs


def _answer(filtered) -> str | None:
    """The toolkit's extracted answer: the filtered text of a generation task; for a
    multiple-choice task (``[[logprob, is_greedy], ...]``) the index of the most likely choice."""
    if (
        isinstance(filtered, list)
        and filtered
        and all(isinstance(x, list) and x and isinstance(x[0], (int, float)) for x in filtered)
    ):
        return str(max(range(len(filtered)), key=lambda i: filtered[i][0]))
    value = _flat(filtered)
    return None if value is None else str(value)


def _metric(rec: dict) -> tuple[str | None, float | None]:
    """(metric name, per-sample value) -- the first listed metric with a number, preferring the
    usual accuracy names; (name, None) when the metric is aggregated over the corpus."""
    names = [m for m in rec.get("metrics") or [] if isinstance(m, str)] or [m for m in PREFERRED if m in rec]
    names.sort(key=lambda m: PREFERRED.index(m) if m in PREFERRED else len(PREFERRED))
    for name in names:
        value = rec.get(name)
        if isinstance(value, bool) or (isinstance(value, (int, float)) and math.isfinite(value)):
            return name, float(value)
    return (names[0] if names else None), None


def _generation(kwargs: dict) -> dict:
    out = {}
    for ours, theirs in (("temperature", "temperature"), ("max_tokens", "max_gen_toks"), ("top_p", "top_p")):
        if kwargs.get(theirs) is not None:
            out[ours] = kwargs[theirs]
    if kwargs.get("until") is not None:
        out["stop_sequences"] = kwargs["until"]
    if kwargs.get("do_sample") is not None:
        out["do_sample"] = kwargs["do_sample"]
    return out


def settings(results: dict | None, task: str, row_kwargs: dict, filter_name: str | None) -> dict:
    """The settings a difference in which can move scores: from the results json when present
    (template, few-shot, generation kwargs, chat template, harness version), else what the row's own
    request carries (generation kwargs), plus the answer filter kept."""
    out = _generation(row_kwargs)
    if filter_name:
        out["answer_extraction"] = filter_name
    if not results:
        return out
    config = (results.get("configs") or {}).get(task) or {}
    out.update(_generation(config.get("generation_kwargs") or {}))
    shots = config.get("num_fewshot", (results.get("n-shot") or {}).get(task))
    if shots is not None:
        out["few_shot"] = shots
    template = config.get("doc_to_text")
    if isinstance(template, str):
        out["prompt_template_sha1"] = hashlib.sha1(template.encode()).hexdigest()[:12]
    for key in ("chat_template_sha", "system_instruction_sha", "fewshot_as_multiturn"):
        if results.get(key) is not None:
            out[key] = results[key]
    if results.get("lm_eval_version"):
        out["eval_harness_version"] = results["lm_eval_version"]
    if config.get("repeats") not in (None, 1):
        out["repeats_per_task"] = config["repeats"]
    return out


class LmEvalSamples(FileSet):
    kind = KIND
    default_benchmark = "lm-eval"

    def __init__(self, files: list[Path]) -> None:
        super().__init__(files)
        self.kept_filter: dict[str, str | None] = {}
        self.metric: dict[str, str | None] = {}
        self._results: dict[str, dict | None] = {}
        self._settings: dict[tuple, str | None] = {}
        self._tasks: dict[str, str] = {}

    def task_of(self, path: Path, rec: dict | None = None) -> str:
        """From the file name (once per file); else the row's own ``task``; else the file stem."""
        named = self._tasks.get(str(path))
        if named is None:
            named = self._tasks[str(path)] = name_parts(path)[0] or ""
        return named or first_str(rec or {}, "task") or path.name.split(".")[0]

    def results(self, path: Path) -> dict | None:
        if str(path) not in self._results:
            self._results[str(path)] = results_beside(path)
        return self._results[str(path)]

    def scan(self, path: Path, skips: SkipLog) -> Iterator[Candidate]:
        rel = self.rel.get(str(path), path.name)
        for i, rec, bad in records(path, skips):
            skips.find()
            where = f"{path} row {i + 1}"
            if bad or not isinstance(rec, dict):
                skips.skip(bad or "row is not an object", where)
                continue
            skips.saw_keys(path, rec)
            filt = rec.get("filter") if isinstance(rec.get("filter"), str) else None
            kept = self.kept_filter.setdefault(str(path), filt)
            if filt != kept:
                skips.skip(OTHER_FILTER, where, lost=False)
                continue
            doc_id = first_str(rec, "doc_id")
            if doc_id is None:
                skips.skip(NO_DOC_ID, where)
                continue
            task = self.task_of(path, rec)
            yield Candidate(path, i, where, f"{task}/{doc_id}", trial_name=f"{rel}:{doc_id}")

    def load(self, path: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        last = max(wanted)
        for i, rec, _bad in records(path):
            if i > last:
                return
            cand = wanted.get(i)
            if cand is not None:
                yield cand, self._row(path, rec, skips)

    def _row(self, path: Path, rec: dict, skips: SkipLog) -> dict:
        task = self.task_of(path, rec)
        prompt, kwargs = _prompt_and_kwargs(rec.get("arguments"))
        metric, reward = _metric(rec)
        self.metric.setdefault(str(path), metric)
        if reward is None:
            skips.note(NOT_NUMERIC)
        response = _flat(rec.get("resps"))
        messages = [{"role": "user", "content": prompt or ""}]
        if isinstance(response, str):
            messages.append({"role": "assistant", "content": response})
        doc = rec.get("doc")
        target = rec.get("target")
        key = (str(path), _json.dumps(kwargs, sort_keys=True))  # one request shape per task, as a rule
        if key not in self._settings:
            found = settings(self.results(path), task, kwargs, self.kept_filter.get(str(path)))
            self._settings[key] = _json.dumps(found) if found else None
        return {
            "_messages": messages,
            "reward": reward,
            "task_family": task,
            # the benchmark item itself, not the rendered prompt: two templates still pair by content
            "question": _json.dumps(doc, sort_keys=True) if doc is not None else prompt,
            "expected_answer": None if target is None else target if isinstance(target, str) else _json.dumps(target),
            "answer": _answer(rec.get("filtered_resps")),
            "gen_settings": self._settings[key],
        }

    def toolkit_agreement(self, tally) -> list[dict]:
        """Per samples file with its results json: the toolkit's ``<metric>,<filter>`` against the
        mean of the rows written for that task."""
        out = []
        for path in self.files:
            results = self.results(path)
            if results is None:
                continue
            task = self.task_of(path)
            metric, filt = self.metric.get(str(path)), self.kept_filter.get(str(path))
            key = f"{metric},{filt}" if filt else str(metric)
            toolkit = (results["results"].get(task) or {}).get(key)
            fam = tally.families.get(task)
            ours = fam.reward_sum / fam.scored if fam and fam.scored else None
            note = f"{results['file']}: {key}"
            if ours is None and toolkit is not None:
                note += " (aggregated over the corpus: no per-sample value to compare)"
            out.append(
                agreement_row(task, key, toolkit, None if ours is None else round(ours, 6), tolerance=1e-6, note=note)
            )
            n = ((results.get("n-samples") or {}).get(task) or {}).get("effective")
            if n is not None and fam is not None:
                out.append(
                    agreement_row(task, "n-samples effective", n, len(fam.tasks), tolerance=0, note=results["file"])
                )
        return out
