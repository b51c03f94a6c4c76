"""A threaded loopback server speaking the subset of the Hub HTTP API huggingface_hub uses.

    with HubServer(hub_root) as srv:                      # same folder layout as LocalHub
        srv.inject("/api/models/org/m", status=500, times=2)  # two 500s, then normal answers
        HfHub(endpoint=srv.url, token="t").model_info("org/m")

The repos ARE a LocalHub folder (LocalHub does the listing, hashing and writes), so one fixture
world serves both backends. Endpoints were taken from the installed huggingface_hub sources:
repo info (`/api/{type}s/{id}[/revision/{rev}]`, hf_api.model_info), listing (`/api/models?author=`),
tree (`/api/{type}s/{id}/tree/{rev}[/{path}]`, _iter_repo_tree_pages), file HEAD/GET
(`[/datasets]/{id}/resolve/{rev}/{path}`, file_download.get_hf_file_metadata: ETag, X-Repo-Commit,
Content-Length), `/api/whoami-v2`, `/api/{type}s/{id}/auth-check/write` (HfApi.auth_check) and
the commit pair `preupload/{rev}` + `commit/{rev}` (_commit_api; every file is "regular", inline).
Faults: `inject(path_substring, status=, times=, retry_after=, delay=, method=)`.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from resources.hub import LocalHub, RepoNotFoundError
from support.loopback import LoopbackServer


@dataclass
class Fault:
    pattern: str
    status: int | None = 500  # None: only the delay, then the normal answer
    times: int | None = 1  # None: forever
    retry_after: float | None = None
    delay: float = 0.0  # longer than the client timeout = a timeout
    method: str | None = None


class HubError404(Exception):
    def __init__(self, code: str, message: str, commit: str | None = None):
        super().__init__(message)
        self.code, self.commit = code, commit


def _iso(dt) -> str | None:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z" if dt else None


class HubServer(LoopbackServer):
    def __init__(self, root: Path | str, token: str | None = None):
        self.hub = LocalHub(root)
        self.token = token  # when set, requests without this bearer token get 401
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str, bool]] = []  # (method, path?query, authorized); never header values
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.base_url

    def handler_class(self):
        return _handler(self)

    def inject(self, pattern: str, **kw) -> Fault:
        fault = Fault(pattern, **kw)
        with self._lock:
            self.faults.append(fault)
        return fault

    def paths(self, method: str | None = None) -> list[str]:
        return [p for m, p, _ in self.requests if method in (None, m)]

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.pattern in path and fault.method in (None, method) and fault.times != 0:
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    # -- Hub semantics on top of LocalHub ------------------------------------------------------
    def info(self, repo_type: str, repo_id: str, revision: str | None = None):
        try:
            info = self.hub._info(repo_id, repo_type, None)
        except RepoNotFoundError as exc:
            raise HubError404("RepoNotFound", str(exc)) from exc
        if revision not in (None, "main", info.revision):
            raise HubError404("RevisionNotFound", f"revision {revision} not found", info.revision)
        return info

    def info_json(self, info, blobs: bool) -> dict:
        siblings = [{"rfilename": f.path, **({"size": f.size, "blobId": f.sha} if blobs else {})} for f in info.files]
        return {
            "id": info.repo_id,
            "author": info.repo_id.split("/")[0],
            "sha": info.revision,
            "private": False,
            "gated": False,
            "disabled": False,
            "lastModified": _iso(info.last_modified),
            "siblings": siblings,
        }

    def tree(self, info, prefix: str, recursive: bool) -> list[dict]:
        prefix = prefix.strip("/")
        base = prefix + "/" if prefix else ""
        entries, folders = [], set()
        for f in info.files:
            if not f.path.startswith(base):
                continue
            rest = f.path[len(base) :].split("/")
            for depth in range(1, len(rest)):
                if recursive or depth == 1:
                    folders.add(base + "/".join(rest[:depth]))
            if recursive or len(rest) == 1:
                entries.append({"type": "file", "path": f.path, "size": f.size, "oid": f.sha})
        return [{"type": "directory", "path": d, "oid": "0" * 40} for d in sorted(folders)] + entries

    def models_json(self, author: str | None) -> list[dict]:
        base = self.hub.root / "models"
        orgs = [base / author] if author else sorted(p for p in base.glob("*") if p.is_dir())
        infos = [
            self.info("model", f"{o.name}/{d.name}")
            for o in orgs
            if o.is_dir()
            for d in sorted(o.iterdir())
            if d.is_dir()
        ]
        infos.sort(key=lambda i: i.last_modified.timestamp() if i.last_modified else 0.0, reverse=True)
        return [self.info_json(i, blobs=False) for i in infos]


def _handler(server: HubServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep pytest output clean
            pass

        def _send(self, code: int, body: bytes = b"", headers: dict | None = None, ctype="application/json"):
            try:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                for k, v in (headers or {}).items():
                    self.send_header(k, str(v))
                if "Content-Length" not in (headers or {}):
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def _json(self, obj, code: int = 200):
            self._send(code, json.dumps(obj).encode())

        def _error(self, code: int, message: str, error_code: str | None = None, headers: dict | None = None):
            hdrs = {
                "X-Error-Message": message,
                **({"X-Error-Code": error_code} if error_code else {}),
                **(headers or {}),
            }
            self._send(code, json.dumps({"error": message}).encode(), hdrs)

        def _handle(self):
            split = urlsplit(self.path)
            raw = [unquote(s) for s in split.path.split("/")[1:]]
            path = "/" + "/".join(raw)
            query = {k: v[-1] for k, v in parse_qs(split.query).items()}
            authorized = server.token is None or self.headers.get("authorization") == f"Bearer {server.token}"
            server.requests.append((self.command, path + (f"?{split.query}" if split.query else ""), authorized))
            fault = server._take_fault(self.command, path)
            if fault:
                time.sleep(fault.delay)
                if fault.status is not None:
                    extra = {"Retry-After": int(fault.retry_after)} if fault.retry_after is not None else {}
                    return self._error(fault.status, f"injected {fault.status}", headers=extra)
            if not authorized:
                return self._error(401, "Invalid credentials in Authorization header")
            try:
                self._route(raw, query)
            except HubError404 as exc:
                self._error(404, str(exc), exc.code, {"X-Repo-Commit": exc.commit} if exc.commit else None)

        def _route(self, raw: list[str], query: dict):
            method = self.command
            if raw[:2] == ["api", "whoami-v2"]:
                return self._json(
                    {"type": "user", "name": "rldelta-test", "orgs": [], "auth": {"type": "access_token"}}
                )
            if raw[:2] == ["api", "models"] and len(raw) == 2:
                return self._json(server.models_json(query.get("author")))
            if raw[0] == "api" and raw[1] in ("models", "datasets") and len(raw) >= 4:
                return self._api_repo(raw[1][:-1], f"{raw[2]}/{raw[3]}", raw[4:], query, method)
            kind, rest = ("dataset", raw[1:]) if raw[0] == "datasets" else ("model", raw)
            if len(rest) >= 5 and rest[2] == "resolve" and method in ("GET", "HEAD"):
                return self._resolve(kind, f"{rest[0]}/{rest[1]}", rest[3], "/".join(rest[4:]))
            self._error(404, f"no route for {method} {'/'.join(raw)}")

        def _api_repo(self, kind, repo_id, rest, query, method):
            op = rest[0] if rest else ""
            if op in ("", "revision") and method == "GET":
                info = server.info(kind, repo_id, rest[1] if op == "revision" else None)
                return self._json(server.info_json(info, blobs=query.get("blobs", "").lower() == "true"))
            if op == "tree" and method == "GET":
                info = server.info(kind, repo_id, rest[1])
                return self._json(server.tree(info, "/".join(rest[2:]), query.get("recursive", "").lower() == "true"))
            if op in ("auth-check", "preupload", "commit"):
                server.info(kind, repo_id)  # 404 first, like the Hub
                ok, reason = server.hub.can_write(repo_id, kind)
                if op == "auth-check" and rest[1:] != ["write"]:
                    return self._json({})
                if not ok:
                    return self._error(403, f"You don't have the rights to write to {repo_id}: {reason}")
                if op == "auth-check":
                    return self._json({})
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                return self._preupload(body) if op == "preupload" else self._commit(kind, repo_id, body)
            self._error(404, f"no route for {method} api/{kind}s/{repo_id}/{'/'.join(rest)}")

        def _preupload(self, body: bytes):
            files = json.loads(body)["files"]
            self._json({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]})

        def _commit(self, kind, repo_id, body: bytes):
            revision = None
            for line in body.decode().splitlines():
                item = json.loads(line) if line.strip() else {}
                if item.get("key") == "file":
                    value = item["value"]
                    revision = server.hub.upload_file(repo_id, value["path"], base64.b64decode(value["content"]), kind)
                elif item.get("key") not in ("header", None):
                    return self._error(400, f"loopback hub does not support {item.get('key')} operations")
            revision = revision or server.info(kind, repo_id).revision
            prefix = "datasets/" if kind == "dataset" else ""
            self._json(
                {
                    "commitUrl": f"{server.url}/{prefix}{repo_id}/commit/{revision}",
                    "commitOid": revision,
                    "pullRequestUrl": None,
                }
            )

        def _resolve(self, kind, repo_id, revision, file_path):
            info = server.info(kind, repo_id, revision)
            entry = next((f for f in info.files if f.path == file_path), None)
            if entry is None:
                raise HubError404("EntryNotFound", f"{file_path} not in {repo_id}", info.revision)
            base = server.hub._repo_dir(repo_id, kind)
            data = (base / file_path).read_bytes() if self.command == "GET" else b""
            headers = {"ETag": f'"{entry.sha}"', "X-Repo-Commit": info.revision, "Content-Length": entry.size}
            self._send(200, data, headers, ctype="application/octet-stream")

        do_GET = do_HEAD = do_POST = _handle

    return Handler
