"""`LocalHub`: a directory laid out like the Hub; the embedded default and the demo world."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from resources.hub.types import (
    DATA_SUFFIXES,
    HubError,
    HubPermissionError,
    RepoFile,
    RepoInfo,
    RepoNotFoundError,
    _digest,
)


def _file_sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def matches(path: str, patterns: list[str] | None) -> bool:
    """huggingface_hub-style allow patterns (`training_logs/**`, `*.parquet`)."""
    if not patterns:
        return True
    return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path, p.replace("/**", "/*")) for p in patterns)


class LocalHub:
    """A folder laid out like the Hub: models/<org>/<name>/…, datasets/<org>/<name>/….

    Revisions are content hashes, so they change exactly when a file's content changes.
    Read-only repos can be simulated with a `.readonly` marker file in the repo folder.
    """

    # Shared by every LocalHub in the process: sensors build a new client each tick, and
    # re-hashing unchanged files (same path, size, mtime) every tick would make ticks O(bytes).
    _sha_cache: dict[tuple[str, int, int], str] = {}

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def _repo_dir(self, repo_id: str, repo_type: str) -> Path:
        folder = {"model": "models", "dataset": "datasets"}.get(repo_type)
        if folder is None:
            raise HubError(f"unknown repo type {repo_type!r} for {repo_id}")
        return self.root / folder / repo_id

    def _sha(self, path: Path) -> str:
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key not in self._sha_cache:
            self._sha_cache[key] = _file_sha1(path)
        return self._sha_cache[key]

    def _info(self, repo_id: str, repo_type: str, revision: str | None) -> RepoInfo:
        base = self._repo_dir(repo_id, repo_type)
        if not base.is_dir():
            raise RepoNotFoundError(
                f"{repo_type} repo {repo_id!r} not found in the local hub at {self.root} "
                f"(check the id, or point RLDELTA_HUB_DIR / the hub resource at the right place)"
            )
        files, newest = [], 0.0
        inside = base.resolve()
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            rel = path.relative_to(base).as_posix()
            if rel.startswith(".") or "/." in rel:
                continue  # markers such as .readonly are not repo content
            if not path.resolve().is_relative_to(inside):
                # a symlink out of the repo would copy an outside file into the hub cache and reports
                raise HubError(
                    f"{repo_type} repo {repo_id!r} in the local hub: {rel} is a symlink to "
                    f"{path.resolve()}, outside the repo folder {inside}; refusing to read it"
                )
            files.append(RepoFile(rel, path.stat().st_size, self._sha(path)))
            newest = max(newest, path.stat().st_mtime)
        current = _digest(files)
        if revision not in (None, "main", current):
            raise RepoNotFoundError(
                f"revision {revision} of {repo_type} repo {repo_id!r} is not available in the local hub "
                f"(it keeps only the current revision {current[:12]})"
            )
        modified = datetime.fromtimestamp(newest, tz=UTC) if files else None
        return RepoInfo(repo_id, repo_type, current, modified, files)

    def model_info(self, repo_id, revision=None):
        return self._info(repo_id, "model", revision)

    def dataset_info(self, repo_id, revision=None):
        return self._info(repo_id, "dataset", revision)

    def repo_exists(self, repo_id, repo_type="model"):
        return self._repo_dir(repo_id, repo_type).is_dir()

    def list_models(self, author=None):
        base = self.root / "models"
        orgs = [base / author] if author else sorted(p for p in base.glob("*") if p.is_dir())
        infos = [
            self.model_info(f"{org.name}/{d.name}")
            for org in orgs
            if org.is_dir()
            for d in sorted(org.iterdir())
            if d.is_dir()
        ]
        epoch = datetime.min.replace(tzinfo=UTC)
        return sorted(infos, key=lambda i: i.last_modified or epoch, reverse=True)

    def download(self, repo_id, repo_type="model", allow_patterns=None, revision=None):
        # Copy into a revision-keyed snapshot so a later upload never changes what a run read.
        info = self._info(repo_id, repo_type, revision)
        from rl_assets.store import local_cache

        snap = local_cache("hub-snapshots") / repo_type / repo_id.replace("/", "--") / info.revision
        base = self._repo_dir(repo_id, repo_type)
        for f in info.files:
            if matches(f.path, allow_patterns):
                target = snap / f.path
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    tmp = target.with_name(target.name + ".part")
                    shutil.copyfile(base / f.path, tmp)
                    os.replace(tmp, target)
        snap.mkdir(parents=True, exist_ok=True)
        return snap

    def dataset_files(self, repo_id, revision=None):
        snap = self.download(repo_id, "dataset", revision=revision)
        return sorted(
            p
            for p in snap.rglob("*")
            if p.is_file() and p.name.endswith(DATA_SUFFIXES) and p.name != "dataset_infos.json"
        )

    def can_write(self, repo_id, repo_type="dataset"):
        base = self._repo_dir(repo_id, repo_type)
        if not base.is_dir():
            return False, f"{repo_type} repo {repo_id!r} does not exist in the local hub"
        if (base / ".readonly").exists():
            return False, f"{repo_type} repo {repo_id!r} is read-only for this user (403)"
        return True, "writable"

    def upload_file(self, repo_id, path_in_repo, data, repo_type="dataset", commit_message=""):
        ok, reason = self.can_write(repo_id, repo_type)
        if not ok:
            raise HubPermissionError(f"cannot upload to {repo_id}: {reason}")
        from rl_assets.fileutil import atomic_write_bytes

        atomic_write_bytes(self._repo_dir(repo_id, repo_type) / path_in_repo, data)
        return self._info(repo_id, repo_type, None).revision
