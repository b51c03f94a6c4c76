"""Source spec -> (kind, ref, revision, adapter).

Accepted: ``hf:org/name``, ``hf:org/name@revision``, ``org/name`` (Hub datasets of exported
rows), local files (.parquet/.jsonl/.json: exported rows, an ATIF trajectory, a Harbor trial
result.json, reasoning-gym eval files), ``wandb-val:<run folder>[@first|@last|@all|@<step>]``
(a W&B run's validation-generation tables, wandb_validation.py) and local folders (a Harbor job/trial folder, a
folder of reasoning-gym eval files, or a folder of data files). A spec is local when it
starts with / ./ ../ ~, exists, or ends with a data suffix; a local spec that does not exist
is a FileNotFoundError -- never silently a Hub id (docs/original_pipeline.md W11). Otherwise an ``org/name``
spec is a Hub dataset id (dots allowed: ``laion/Qwen2.5-7B-traces``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rl_assets.schema import DATA_FILE_SUFFIXES

from . import _json
from .formats import atif, harbor, inspect_log, lighteval, lm_eval, qwen_math, reasoning_gym, wandb_validation
from .formats.exported import ExportedRows, looks_like_rows, parquet_columns
from .formats.harbor_walk import Discovery, is_trial_result
from .jsonl import records
from .report import IngestError, SkipLog
from .walk import account_extras, not_data_reason, read_bytes, split_suffix, walk

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class Source:
    kind: str
    ref: str
    revision: str | None
    adapter: object


_LOCAL_PREFIXES = ("/", "./", "../", "~", ".\\", "..\\")


def _looks_local(spec: str) -> bool:
    """A local path when it is no URL and starts with / ./ ../ ~, exists, or ends with a data-file suffix
    (.parquet .jsonl .ndjson .json). Any other suffix does not make a spec local: Hub ids
    such as ``laion/Qwen2.5-7B-traces`` or ``org/model-v1.5`` contain dots."""
    if "://" in spec:
        return False  # a URL names a Hub dataset or nothing, never a file here
    lower = spec.lower()
    return spec.startswith(_LOCAL_PREFIXES) or lower.endswith(DATA_FILE_SUFFIXES) or Path(spec).expanduser().exists()


def hub_dataset(spec: str) -> tuple[str, str | None] | None:
    """(repo id, pinned revision or None) when `spec` names a Hub dataset, else None. No I/O."""
    spec = (spec or "").strip()
    if spec.startswith("hf:"):
        spec = spec[3:]
    elif _looks_local(spec):
        return None
    repo_id, _, revision = spec.partition("@")
    return (repo_id, revision or None) if _HUB_ID.match(repo_id) else None


def resolve(spec: str, hub, skips: SkipLog | None = None) -> Source:
    """The source a spec names, its inputs put on ``skips`` (found, read, not read by reason)."""
    skips = SkipLog() if skips is None else skips
    spec = (spec or "").strip()
    if not spec:
        raise IngestError("empty trace source spec")
    if spec.startswith("hf:"):
        return _hub_source(spec[3:], hub, skips)
    if spec.startswith(wandb_validation.PREFIX):  # a run's validation generations (rounds as traces)
        folder, rounds = wandb_validation.parse_spec(spec)
        return Source(
            "wandb_validation",
            f"{folder.resolve()}@{rounds}",
            None,
            wandb_validation.WandbValidation(folder.resolve(), rounds),
        )
    if _looks_local(spec):
        path = Path(spec).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"trace source {spec!r} does not exist (a local path, not a Hub id)")
        return _local_source(path.resolve(), skips)
    if _HUB_ID.match(spec.split("@", 1)[0]):
        return _hub_source(spec, hub, skips)
    raise IngestError(f"trace source {spec!r} is neither an existing path nor a Hub dataset id 'org/name'")


def _hub_source(ref: str, hub, skips: SkipLog) -> Source:
    repo_id, _, revision = ref.partition("@")
    if not _HUB_ID.match(repo_id):
        raise IngestError(f"invalid Hub dataset id {repo_id!r} in trace source spec")
    if hub is None:
        raise IngestError(f"trace source {ref!r} is a Hub dataset but no hub backend was given")
    info = hub.dataset_info(repo_id, revision or None)
    files = _data_files(sorted((Path(p) for p in hub.dataset_files(repo_id, info.revision)), key=str), skips)
    if not files:
        raise IngestError(f"Hub dataset {repo_id} has no parquet/jsonl/json data files")
    kind, adapter = _classify_files(files, f"Hub dataset {repo_id}", skips)
    return Source(kind, repo_id, info.revision, adapter)


def _local_source(path: Path, skips: SkipLog) -> Source:
    if path.is_dir():
        found = Discovery(path)
        if found.harbor:
            return Source("harbor", str(path), None, harbor.HarborTrials(path, found.account(skips)))
        w = found.walk if not found.walk.units else walk(path)  # folders it took for trials: search them
        account_extras(w, skips)
        files = _data_files(w.files, skips)
        if not files:
            raise IngestError(f"{path}: folder holds no Harbor trials and no data files")
        kind, adapter = _classify_files(files, str(path), skips)
        return Source(kind, str(path), None, adapter)
    reason = not_data_reason(path)
    if reason is not None:
        raise IngestError(
            f"{path}: unsupported file type {path.suffix!r} ({reason[0]}; "
            "expected .parquet, .jsonl or .json, optionally .gz/.bz2/.zst)"
        )
    trial = path.parent.parent
    if path.parent.name == "agent" and path.name.startswith("trajectory"):
        found = Discovery(trial)
        if found.harbor and found.walk.units == [trial]:  # its trial gives the task id
            return Source("harbor", str(trial), None, harbor.HarborTrials(trial, found.account(skips)))
    kind, adapter = _classify_files([path], str(path), skips)
    return Source(kind, str(path), None, adapter)


def _data_files(files: list[Path], skips: SkipLog) -> list[Path]:
    """The data files among ``files``; every other one is put on the ledger as not read."""
    out = []
    for f in files:
        reason = not_data_reason(f)
        if reason is None:
            out.append(f)
        else:
            skips.input_not_read(reason[0], f, lost=reason[1])
    return out


# Eval toolkits rldelta reads by their own readers; jsonl ones are chosen by the first record's keys,
# Inspect logs by their .eval suffix or a JSON document that is an EvalLog.
EVAL_READERS = {
    qwen_math.KIND: qwen_math.QwenMathFiles,
    lm_eval.KIND: lm_eval.LmEvalSamples,
    inspect_log.KIND: inspect_log.InspectLogs,
    lighteval.KIND: lighteval.LightevalDetails,
}
JSONL_SNIFFERS = ((qwen_math.is_row, qwen_math.KIND), (lm_eval.is_row, lm_eval.KIND))
SUMMARY = "eval toolkit summary (metrics/results json) beside its samples"


def _eval_kind(path: Path) -> str | None:
    """The eval toolkit that wrote a jsonl, judged by its first record (None: exported rows)."""
    for _i, rec, bad in records(path):
        if bad:
            continue
        return next((kind for is_row, kind in JSONL_SNIFFERS if is_row(rec)), None)
    return None


def _is_summary(data) -> bool:
    return qwen_math.is_metrics(data) or lm_eval.is_results(data)


def _classify_files(files: list[Path], where: str, skips: SkipLog):
    """All files of one source must be one kind; JSON and JSONL files are sniffed by content. Each
    file is put on the ledger: read, or not read with the reason."""
    rows, rg, preloaded, ignored, summaries = [], [], {}, [], []
    evals: dict[str, list[Path]] = {}
    single = len(files) == 1
    for f in files:
        suffix = split_suffix(f)[0]
        if suffix in (".jsonl", ".ndjson"):
            kind = _eval_kind(f)
            (evals.setdefault(kind, []) if kind else rows).append(f)
            continue
        if suffix == ".eval":
            evals.setdefault(inspect_log.KIND, []).append(f)
            continue
        if suffix == ".parquet" and split_suffix(f)[1] is None and lighteval.is_details(parquet_columns(f)):
            evals.setdefault(lighteval.KIND, []).append(f)
            continue
        if suffix != ".json":
            rows.append(f)
            continue
        try:
            data = _json.loads(read_bytes(f))
        except (ValueError, OSError) as exc:
            raise IngestError(f"{f}: not valid JSON: {exc}") from exc
        if inspect_log.is_log(data):
            evals.setdefault(inspect_log.KIND, []).append(f)
        elif _is_summary(data):
            if single:
                raise IngestError(
                    f"{f}: an eval toolkit's summary (metrics or results json) without its per-sample "
                    "file: give the samples jsonl or the folder holding both"
                )
            summaries.append(f)
        elif looks_like_rows(data):
            rows.append(f)
            if single:  # one shard: hand it over instead of parsing it again
                preloaded[f] = data  # (several: not held, so memory stays one shard deep)
        elif reasoning_gym.is_rg_file(data) or (not single and reasoning_gym.looks_like_rg(data)):
            rg.append((f, data))
        elif reasoning_gym.is_rg_summary(data) and not single:
            ignored.append((f, "summary.json beside eval files (model name only)", False))
        elif single and atif.is_atif(data):
            skips.input_read()
            return "atif", atif.AtifFile(f, data)
        elif single and is_trial_result(data):
            skips.input_read()
            return "harbor", harbor.HarborTrials(f.parent, [f.parent])
        elif single:
            raise IngestError(f"{f}: {atif.describe_non_atif(data)}")
        else:
            ignored.append((f, *_why_not(data)))
    kinds = [k for k, found in (("exported rows", rows), ("reasoning-gym eval files", rg), *evals.items()) if found]
    if len(kinds) > 1:
        raise IngestError(f"{where}: mixes {' and '.join(kinds)}; ingest them separately")
    if not kinds:
        raise IngestError(f"{where}: no trace data files found")
    for f, reason, lost in ignored:
        skips.input_not_read(reason, f, lost=lost)
    for f in summaries:  # read by the eval reader for its toolkit check; beside anything else, not read
        if evals:
            skips.input_read()
        else:
            skips.input_not_read(SUMMARY + " (no samples of that toolkit here)", f, lost=False)
    if evals:
        kind, found = next(iter(evals.items()))
        for _ in found:
            skips.input_read()
        return kind, EVAL_READERS[kind](found)
    for _ in rows or rg:
        skips.input_read()
    if rg:
        return "reasoning_gym", reasoning_gym.RgFiles(rg)
    return "exported_rows", ExportedRows(rows, preloaded)


def _why_not(data) -> tuple[str, bool]:
    """(reason, lost) for a JSON file in a data folder that is not read as trace data."""
    if atif.is_atif(data):
        return "ATIF trajectory among other data files (ingest it on its own)", True
    if isinstance(data, list):
        return "JSON array without trace rows", True
    return "JSON document of another kind (not trace data)", False
