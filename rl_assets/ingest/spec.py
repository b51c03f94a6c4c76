"""Source spec -> (kind, ref, revision, adapter).

Accepted: ``hf:org/name``, ``hf:org/name@revision``, ``org/name`` (Hub datasets of exported
rows), local files (.parquet/.jsonl/.json: exported rows, an ATIF trajectory, a Harbor trial
result.json, reasoning-gym eval files) and local folders (a Harbor job/trial folder, a
folder of reasoning-gym eval files, or a folder of data files). A spec is local when it
starts with / ./ ../ ~, exists, or ends with a data suffix; a local spec that does not exist
is a FileNotFoundError -- never silently a Hub id (seed §9.11). Otherwise an ``org/name``
spec is a Hub dataset id (dots allowed: ``laion/Qwen2.5-7B-traces``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from . import _json, atif, harbor, reasoning_gym
from .exported import ExportedRows, looks_like_rows
from .report import IngestError

DATA_SUFFIXES = (".parquet", ".jsonl", ".ndjson", ".json")
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class Source:
    kind: str
    ref: str
    revision: str | None
    adapter: object


_LOCAL_PREFIXES = ("/", "./", "../", "~", ".\\", "..\\")


def _looks_local(spec: str) -> bool:
    """A local path when it starts with / ./ ../ ~, exists, or ends with a data-file suffix
    (.parquet .jsonl .ndjson .json). Any other suffix does not make a spec local: Hub ids
    such as ``laion/Qwen2.5-7B-traces`` or ``org/model-v1.5`` contain dots."""
    return (spec.startswith(_LOCAL_PREFIXES) or spec.lower().endswith(DATA_SUFFIXES)
            or Path(spec).expanduser().exists())


def hub_dataset(spec: str) -> tuple[str, str | None] | None:
    """(repo id, pinned revision or None) when `spec` names a Hub dataset, else None. No I/O."""
    spec = (spec or "").strip()
    if spec.startswith("hf:"):
        spec = spec[3:]
    elif _looks_local(spec):
        return None
    repo_id, _, revision = spec.partition("@")
    return (repo_id, revision or None) if _HUB_ID.match(repo_id) else None


def resolve(spec: str, hub) -> Source:
    spec = (spec or "").strip()
    if not spec:
        raise IngestError("empty trace source spec")
    if spec.startswith("hf:"):
        return _hub_source(spec[3:], hub)
    if _looks_local(spec):
        path = Path(spec).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"trace source {spec!r} does not exist (a local path, not a Hub id)")
        return _local_source(path.resolve())
    if _HUB_ID.match(spec.split("@", 1)[0]):
        return _hub_source(spec, hub)
    raise IngestError(f"trace source {spec!r} is neither an existing path nor a Hub dataset id 'org/name'")


def _hub_source(ref: str, hub) -> Source:
    repo_id, _, revision = ref.partition("@")
    if not _HUB_ID.match(repo_id):
        raise IngestError(f"invalid Hub dataset id {repo_id!r} in trace source spec")
    if hub is None:
        raise IngestError(f"trace source {ref!r} is a Hub dataset but no hub backend was given")
    info = hub.dataset_info(repo_id, revision or None)
    files = [Path(p) for p in hub.dataset_files(repo_id, info.revision)]
    files = sorted((p for p in files if p.suffix.lower() in DATA_SUFFIXES), key=str)
    if not files:
        raise IngestError(f"Hub dataset {repo_id} has no parquet/jsonl/json data files")
    kind, adapter = _classify_files(files, where=f"Hub dataset {repo_id}")
    return Source(kind, repo_id, info.revision, adapter)


def _local_source(path: Path) -> Source:
    if path.is_dir():
        if harbor.is_harbor_dir(path):
            return Source("harbor", str(path), None, harbor.HarborTrials(path))
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in DATA_SUFFIXES)
        if not files:
            raise IngestError(f"{path}: folder holds no Harbor trials and no data files")
        kind, adapter = _classify_files(files, where=str(path))
        return Source(kind, str(path), None, adapter)
    if path.suffix.lower() not in DATA_SUFFIXES:
        raise IngestError(f"{path}: unsupported file type {path.suffix!r} (expected .parquet, .jsonl or .json)")
    trial = path.parent.parent
    if path.parent.name == "agent" and path.name.startswith("trajectory") and harbor.is_harbor_dir(trial):
        return Source("harbor", str(trial), None, harbor.HarborTrials(trial))  # its trial gives the task id
    kind, adapter = _classify_files([path], where=str(path))
    return Source(kind, str(path), None, adapter)


def _classify_files(files: list[Path], where: str):
    """All files of one source must be one kind; JSON files are sniffed by content."""
    rows, rg, preloaded = [], [], {}
    for f in files:
        if f.suffix.lower() != ".json":
            rows.append(f)
            continue
        try:
            data = _json.loads(f.read_bytes())
        except ValueError as exc:
            raise IngestError(f"{f}: not valid JSON: {exc}") from exc
        if looks_like_rows(data):
            rows.append(f)
            if len(files) == 1:  # one shard: hand it over instead of parsing it again
                preloaded[f] = data  # (several: not held, so memory stays one shard deep)
        elif reasoning_gym.is_rg_file(data):
            rg.append((f, data))
        elif reasoning_gym.is_rg_summary(data) and len(files) > 1:
            continue  # summary.json beside per-family files: model name only, read there
        elif len(files) == 1 and atif.is_atif(data):
            return "atif", atif.AtifFile(f, data)
        elif len(files) == 1 and harbor.is_trial_result(data):
            return "harbor", harbor.HarborTrials(f.parent)
        elif len(files) == 1:
            raise IngestError(f"{f}: {atif.describe_non_atif(data)}")
        else:
            continue  # unrelated JSON beside data files (e.g. dataset_info.json)
    if rows and rg:
        raise IngestError(f"{where}: mixes exported rows and reasoning-gym eval files; ingest them separately")
    if rg:
        return "reasoning_gym", reasoning_gym.RgFiles(rg)
    if rows:
        return "exported_rows", ExportedRows(rows, preloaded)
    raise IngestError(f"{where}: no trace data files found")
