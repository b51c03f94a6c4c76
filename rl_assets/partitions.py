"""One dynamic partition per model, keyed by the raw Hub repo id (``laion/foo-8B``), and one per RL
training job (``rl_jobs``, keyed by its ``job_name``) for the run lineage (docs/lineage.md)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import TypeGuard

import dagster as dg

# Every asset check of a per-model asset is partitioned too (one result per model, so one model's
# failure never reads as passed because another passed). Dagster 1.13 calls that "preview"; the
# notice would otherwise repeat for every check in every process's log.
warnings.filterwarnings(
    "ignore", message="Specifying a partitions_def on an AssetCheckSpec", category=dg.PreviewWarning
)

# the names, typed str (a partitions definition's .name is Optional) for the instance's partition calls
MODELS, RL_JOBS = "models", "rl_jobs"
models_partitions = dg.DynamicPartitionsDefinition(name=MODELS)
rl_jobs_partitions = dg.DynamicPartitionsDefinition(name=RL_JOBS)


def latest_materialization(
    instance: dg.DagsterInstance, asset: str | dg.AssetKey, partition: str | None = None
) -> dg.EventLogRecord | None:
    """The latest materialization record of `asset` (a key, or an asset name) for `partition` (of any
    partition when None), or None if there is none: the one way the code reads "the latest
    materialization of asset X for partition P" from the event log."""
    key = asset if isinstance(asset, dg.AssetKey) else dg.AssetKey(asset)
    flt = dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition] if partition is not None else None)
    records = instance.fetch_materializations(flt, limit=1).records
    return records[0] if records else None


def metadata_of(record: dg.EventLogRecord | None) -> Mapping[str, dg.MetadataValue]:
    """The metadata a materialization record carries; empty for no record."""
    event = record.asset_materialization if record is not None else None
    return event.metadata if event is not None else {}


def data_version(record: dg.EventLogRecord | None) -> str | None:
    """The data version a materialization record carries (as the asset's page in the UI shows it);
    None for no record or one without a version."""
    event = record.asset_materialization if record is not None else None
    return (event.tags or {}).get("dagster/data_version") if event else None


_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MAX_NAME = 96  # the Hub caps organisation and repo names at 96 characters each


class InvalidRepoId(ValueError):
    """A model id that cannot be a Hub repo id (and so cannot be a partition key)."""


def validate_repo_id(repo_id: object) -> str:
    """Return the id unchanged if it is a valid ``org/name`` Hub repo id, else raise InvalidRepoId.

    >>> validate_repo_id("laion/foo-8B")
    'laion/foo-8B'
    """
    if not isinstance(repo_id, str) or not repo_id:
        raise InvalidRepoId("model id is empty; expected a Hub repo id like 'laion/foo-8B'")

    def refuse(rule: str) -> InvalidRepoId:
        return InvalidRepoId(f"invalid model id {repo_id!r}: {rule} (expected 'org/name', e.g. 'laion/foo-8B')")

    for bad, rule in (
        (" ", "spaces are not allowed"),
        ("..", "'..' is not allowed"),
        ("--", "'--' is not allowed (reserved for path slugs)"),
        (",", "commas are not allowed"),
    ):
        if bad in repo_id:
            raise refuse(rule)
    if any(ch in repo_id for ch in "[]{}()<>"):
        raise refuse("brackets are not allowed")
    if any(ch.isspace() for ch in repo_id):
        raise refuse("whitespace is not allowed")
    parts = repo_id.split("/")
    if len(parts) != 2:
        raise refuse("exactly one '/' between organisation and name is required")
    for part in parts:
        if not _PART.match(part):
            raise refuse(f"part {part!r} must start with a letter or digit and use only letters, digits, '.', '_', '-'")
        if part.endswith((".", "-")):
            raise refuse(f"part {part!r} must not end with '.' or '-'")
    for what, part in zip(("organisation", "name"), parts):
        if len(part) > _MAX_NAME:
            raise refuse(f"{what} is {len(part)} characters, longer than {_MAX_NAME} (the Hub's limit per part)")
    return repo_id


def is_repo_id(value: object) -> TypeGuard[str]:
    """True for a valid `models` partition key (an `rl_jobs` key never is: it has no '/')."""
    try:
        validate_repo_id(value)
    except InvalidRepoId:
        return False
    return True


def slug(repo_id: str) -> str:
    """Path-safe form of a repo id: ``laion/foo-8B`` -> ``laion--foo-8B`` (Hub names never hold '--').

    >>> slug("laion/foo-8B")
    'laion--foo-8B'
    """
    return validate_repo_id(repo_id).replace("/", "--")


def unslug(value: str) -> str:
    """Inverse of slug().

    >>> unslug("laion--foo-8B")
    'laion/foo-8B'
    """
    return validate_repo_id(value.replace("--", "/", 1))


def validate_job_name(job: str) -> str:
    """Return an RL job name unchanged if it can be an `rl_jobs` key and a folder name, else raise.

    >>> validate_job_name("rl-alpha")
    'rl-alpha'
    """
    if (
        not isinstance(job, str)
        or not _PART.match(job)
        or job.endswith((".", "-"))
        or ".." in job
        or len(job) > _MAX_NAME
    ):
        raise InvalidRepoId(
            f"invalid RL job name {job!r}: letters, digits, '.', '_', '-' only, starting with a letter "
            f"or digit, at most {_MAX_NAME} characters"
        )
    return job
