"""`HfHub`: the HubBackend on the Hugging Face Hub (or any Hub-compatible HF_ENDPOINT).

Everything goes through `huggingface_hub.HfApi` / `snapshot_download`; this module adds what a
long-running pipeline needs on top: one retry policy for every call (429 honouring Retry-After,
5xx, timeouts and dropped connections, exponential backoff), a client timeout on every request,
and errors that name the repo and say what to do. The token is only ever handed to the client;
it never appears in a message.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from huggingface_hub import HfApi, snapshot_download
from huggingface_hub.errors import (
    GatedRepoError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from resources.hub.types import (
    DATA_SUFFIXES,
    HubError,
    HubPermissionError,
    HubUnavailableError,
    RepoFile,
    RepoInfo,
    RepoNotFoundError,
)
from rl_assets.values.masking import mask_url, safe_cause

try:  # huggingface_hub >= 2 ships its own httpx fork; 1.x uses httpx
    import httpx2 as _httpx
except ImportError:  # pragma: no cover
    import httpx as _httpx  # type: ignore[no-redef]  # the same client API under its 1.x name

log = logging.getLogger("rldelta.hub")
DEFAULT_ENDPOINT = "https://huggingface.co"
_TRANSIENT_EXC = (_httpx.TimeoutException, _httpx.NetworkError, _httpx.RemoteProtocolError)
_session_timeout: float | None = None
_session_lock = threading.Lock()


def _use_session_timeout(timeout_s: float) -> None:
    """Give huggingface_hub's shared HTTP client a timeout (its default is none at all).

    Several HfApi calls (tree listing, auth checks, commits) take no timeout argument, so a hung
    connection would hang the Dagster run forever. The client is process-wide, hence the guard.
    """
    global _session_timeout
    with _session_lock:
        if _session_timeout == timeout_s:
            return
        from huggingface_hub.utils import set_client_factory
        from huggingface_hub.utils._http import default_client_factory

        def fill_timeout(request):
            # Paginated listings pass timeout=None explicitly, which beats the client default.
            if all(v is None for v in (request.extensions.get("timeout") or {}).values()):
                request.extensions["timeout"] = _httpx.Timeout(timeout_s).as_dict()

        def factory():
            client = default_client_factory()
            client.timeout = _httpx.Timeout(timeout_s)
            hooks = client.event_hooks
            client.event_hooks = {**hooks, "request": [*hooks.get("request", []), fill_timeout]}
            return client

        set_client_factory(factory)
        _session_timeout = timeout_s


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _classify(exc: BaseException) -> tuple[str, int | None, float | None]:
    """(kind, http status, Retry-After seconds); kind: missing|revision|entry|denied|transient|other.

    snapshot_download turns a 5xx or a timeout into LocalEntryNotFoundError "from" the real
    error, so the cause chain is searched, not just the outer exception.
    """
    for e in _chain(exc):
        if isinstance(e, GatedRepoError):
            return "denied", 403, None
        if isinstance(e, RevisionNotFoundError):
            return "revision", 404, None
        if isinstance(e, RemoteEntryNotFoundError):
            return "entry", 404, None
        if isinstance(e, RepositoryNotFoundError):
            return "missing", 404, None
        if isinstance(e, HfHubHTTPError) and getattr(e, "response", None) is not None:
            code = e.response.status_code
            if code in (401, 403):
                return "denied", code, None
            if code == 404:
                return "missing", code, None
            if code in (408, 429) or code >= 500:
                retry_after = e.response.headers.get("Retry-After", "")
                return "transient", code, float(retry_after) if retry_after.strip().isdigit() else None
            return "other", code, None
        if isinstance(e, _TRANSIENT_EXC):
            return "transient", None, None
    if isinstance(exc, LocalEntryNotFoundError):
        return "transient", None, None
    return "other", None, None


class HfHub:
    """HubBackend over huggingface_hub; `endpoint=None` means HF_ENDPOINT or huggingface.co."""

    def __init__(
        self,
        endpoint: str | None = None,
        token: str | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
    ):
        self.endpoint = (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")
        self._token = token or None  # None: huggingface_hub falls back to HF_TOKEN / the stored login
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.api = HfApi(endpoint=self.endpoint, token=self._token)
        _use_session_timeout(timeout_s)

    def __repr__(self) -> str:  # never show the token
        return f"HfHub(endpoint={mask_url(self.endpoint)!r})"

    # -- retries and error mapping ---------------------------------------------------------------
    def _call(self, fn, repo_id: str, repo_type: str, action: str = "read"):
        delay = self.backoff_s
        for attempt in range(self.max_retries + 1):
            try:
                return fn()
            except Exception as exc:  # noqa: BLE001 - classified below, unknown errors re-raised
                kind, code, retry_after = _classify(exc)
                if kind != "transient":
                    error = self._error(kind, code, repo_id, repo_type, action)
                    if error is None:
                        raise
                    raise error from safe_cause(exc)
                if attempt == self.max_retries:
                    raise HubUnavailableError(
                        f"the Hub at {mask_url(self.endpoint)} kept failing for {repo_type} repo {repo_id!r} "
                        f"({'HTTP ' + str(code) if code else type(exc).__name__}) after {attempt + 1} attempts; "
                        "retry later, or check HF_ENDPOINT and the network"
                    ) from safe_cause(exc)
                wait = min(
                    retry_after if retry_after is not None else delay * (1 + 0.1 * random.random()), self.max_backoff_s
                )
                log.warning(
                    "hub %s %s: %s, retry %d/%d in %.1fs",
                    repo_type,
                    repo_id,
                    f"HTTP {code}" if code else type(exc).__name__,
                    attempt + 1,
                    self.max_retries,
                    wait,
                )
                time.sleep(wait)
                delay *= 2

    def _error(self, kind, code, repo_id, repo_type, action) -> HubError | None:
        where = f"{repo_type} repo {repo_id!r} on {self.endpoint}"
        if kind in ("missing", "revision"):
            what = "that revision of " if kind == "revision" else ""
            return RepoNotFoundError(
                f"{what}{where} was not found (or is private and not visible to this token): check the id, "
                "or set HF_TOKEN to a token that can read it"
            )
        if kind == "entry":
            return RepoNotFoundError(
                f"a file listed in {where} is gone from the server (the repo changed mid-read): rerun"
            )
        if kind == "denied":
            need = (
                "write access to it (an org member token with write role)"
                if action == "write"
                else "read access to it (accept the gate if it is gated)"
            )
            return HubPermissionError(f"access denied (HTTP {code}) to {where}: set HF_TOKEN to a token with {need}")
        if code is not None:
            return HubError(f"the Hub at {self.endpoint} rejected a {action} of {where} with HTTP {code}")
        return None

    # -- reads -----------------------------------------------------------------------------------
    def _info(self, repo_id: str, repo_type: str, revision: str | None) -> RepoInfo:
        get = self.api.model_info if repo_type == "model" else self.api.dataset_info
        info = self._call(
            lambda: get(repo_id, revision=revision, files_metadata=True, timeout=self.timeout_s), repo_id, repo_type
        )
        files = [
            RepoFile(s.rfilename, s.size or 0, (s.lfs.sha256 if s.lfs else s.blob_id) or "")
            for s in (info.siblings or [])
        ]
        return RepoInfo(repo_id, repo_type, info.sha, info.last_modified, sorted(files, key=lambda f: f.path))

    def model_info(self, repo_id, revision=None):
        return self._info(repo_id, "model", revision)

    def dataset_info(self, repo_id, revision=None):
        return self._info(repo_id, "dataset", revision)

    def repo_exists(self, repo_id, repo_type="model"):
        try:
            self._call(
                lambda: self.api.repo_info(repo_id, repo_type=repo_type, timeout=self.timeout_s), repo_id, repo_type
            )
        except RepoNotFoundError:
            return False
        except HubPermissionError:
            return True  # gated or private-but-known: it exists, reading it is a separate question
        return True

    def list_models(self, author=None):
        if not author:
            raise HubError(
                f"listing models on {self.endpoint} needs an author/org (the whole Hub is too large to list)"
            )
        # One listing call with each repo's sha: the sensor fetches files only for repos whose sha
        # changed, so a tick costs one request plus one per changed repo (not one per repo).
        models = self._call(
            lambda: list(self.api.list_models(author=author, sort="last_modified", expand=["sha", "lastModified"])),
            author,
            "model",
        )
        infos = [RepoInfo(m.id, "model", m.sha or "", m.last_modified, []) for m in models]
        return sorted(infos, key=lambda i: i.last_modified.timestamp() if i.last_modified else 0.0, reverse=True)

    def _cache_dir(self) -> Path:
        # HF_HUB_CACHE / HF_HOME are honoured (shared machine caches); otherwise stay in the home folder.
        if os.environ.get("HF_HUB_CACHE"):
            return Path(os.environ["HF_HUB_CACHE"]).expanduser()
        if os.environ.get("HF_HOME"):
            return Path(os.environ["HF_HOME"]).expanduser() / "hub"
        from rl_assets.store import local_cache

        return local_cache("huggingface") / "hub"

    def download(self, repo_id, repo_type="model", allow_patterns=None, revision=None):
        folder = self._call(
            lambda: snapshot_download(
                repo_id,
                repo_type=repo_type,
                revision=revision,
                allow_patterns=allow_patterns,
                cache_dir=self._cache_dir(),
                endpoint=self.endpoint,
                token=self._token,
                etag_timeout=self.timeout_s,
            ),
            repo_id,
            repo_type,
        )
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)  # nothing matched: still a (empty) snapshot folder
        return path

    def dataset_files(self, repo_id, revision=None):
        snap = self.download(repo_id, "dataset", allow_patterns=[f"*{s}" for s in DATA_SUFFIXES], revision=revision)
        return sorted(
            p
            for p in snap.rglob("*")
            if p.is_file() and p.name.endswith(DATA_SUFFIXES) and p.name != "dataset_infos.json"
        )

    # -- writes ----------------------------------------------------------------------------------
    def can_write(self, repo_id, repo_type="dataset"):
        """Commit-free preflight (the Hub's auth-check/write), so a 403 shows before any spend."""
        try:
            self._call(
                lambda: self.api.auth_check(repo_id, repo_type=repo_type, write=True), repo_id, repo_type, "write"
            )
        except RepoNotFoundError as exc:
            return False, f"{exc} (rldelta never creates repos: create it first)"
        except HubError as exc:
            return False, str(exc)
        return True, f"token can write to {repo_type} repo {repo_id} on {self.endpoint}"

    def upload_file(self, repo_id, path_in_repo, data, repo_type="dataset", commit_message=""):
        # Retrying is safe: the preupload step reports the remote blob, and an unchanged file is
        # skipped, so a commit that landed before its response was lost is not duplicated in content.
        # Visibility is never touched: no create_repo, no update_repo_settings.
        message = commit_message or f"rldelta: update {path_in_repo}"
        info = self._call(
            lambda: self.api.upload_file(
                path_or_fileobj=data,
                path_in_repo=path_in_repo,
                repo_id=repo_id,
                repo_type=repo_type,
                commit_message=message,
            ),
            repo_id,
            repo_type,
            "write",
        )
        return info.oid
