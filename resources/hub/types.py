"""The hub's shared types: errors, repo listings, the backend interface, file suffixes.

Both backends (resources/hub/local.py, resources/hub/hf.py) and the manifest reader import these;
this module imports neither, so the backends never import each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from rl_assets.schema import DATA_FILE_SUFFIXES
from rl_assets.values.masking import MaskedError

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
# trace data files a dataset may hold, compressed ones included (rl_assets.ingest reads them)
DATA_SUFFIXES = DATA_FILE_SUFFIXES


class HubError(MaskedError):
    """Any hub failure; the message always names the repo (and never a credential: it is masked)."""


class RepoNotFoundError(HubError):
    pass


class HubPermissionError(HubError):
    pass


class HubUnavailableError(HubError):
    pass


@dataclass(frozen=True)
class RepoFile:
    path: str
    size: int
    sha: str = ""  # content hash (LocalHub) or blob id (Hub), used for subtree revisions


@dataclass
class RepoInfo:
    repo_id: str
    repo_type: str
    revision: str
    last_modified: datetime | None
    files: list[RepoFile] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def has_weights(self) -> bool:
        return any(p.endswith(WEIGHT_SUFFIXES) for p in self.paths)

    def has(self, path: str) -> bool:
        return path in self.paths

    def files_under(self, prefix: str) -> list[RepoFile]:
        prefix = prefix.rstrip("/") + "/"
        return [f for f in self.files if f.path.startswith(prefix)]

    def subtree_revision(self, prefix: str) -> str | None:
        """A revision of just the files under `prefix` (None when there are none).

        A new `training_logs/` upload changes this even when the weights did not change, and a
        weights-only upload leaves it alone — the training-logs sensor relies on that.
        """
        files = self.files_under(prefix)
        return _digest(files) if files else None

    def revision_excluding(self, prefix: str) -> str:
        """A revision of everything except `prefix`: the checkpoint itself, without its logs."""
        inside = {f.path for f in self.files_under(prefix)}
        return _digest([f for f in self.files if f.path not in inside])


def _digest(files: list[RepoFile]) -> str:
    digest = hashlib.sha1()
    for f in sorted(files, key=lambda f: f.path):
        digest.update(f"{f.path}\0{f.sha or f.size}\n".encode())
    return digest.hexdigest()


class HubBackend(Protocol):
    def model_info(self, repo_id: str, revision: str | None = None) -> RepoInfo: ...

    def dataset_info(self, repo_id: str, revision: str | None = None) -> RepoInfo: ...

    def repo_exists(self, repo_id: str, repo_type: str = "model") -> bool: ...

    def list_models(self, author: str | None = None) -> list[RepoInfo]: ...

    def download(
        self,
        repo_id: str,
        repo_type: str = "model",
        allow_patterns: list[str] | None = None,
        revision: str | None = None,
    ) -> Path: ...

    def dataset_files(self, repo_id: str, revision: str | None = None) -> list[Path]: ...

    def can_write(self, repo_id: str, repo_type: str = "dataset") -> tuple[bool, str]: ...

    def upload_file(
        self, repo_id: str, path_in_repo: str, data: bytes, repo_type: str = "dataset", commit_message: str = ""
    ) -> str: ...
