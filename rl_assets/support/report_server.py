"""The reports folder, served read-only over HTTP on localhost, so a UI user can open report.md,
pairs.html and lineage.md from a link instead of a server path.

`make ui` starts it beside `dagster dev` (rl_assets/cli/ui.py) unless RLDELTA_REPORTS_URL already names
where reports are published (object storage in production). Only GET and HEAD are answered; a path
that resolves outside the folder (`..`, an encoded `..`, a symlink pointing out) gets 403.
"""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Markdown served as text so a browser shows it instead of downloading it.
EXTRA_TYPES = {".md": "text/markdown; charset=utf-8", ".jsonl": "text/plain; charset=utf-8"}


class ReportHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **EXTRA_TYPES}

    def send_head(self):
        root = Path(self.directory).resolve()
        target = Path(self.translate_path(self.path)).resolve()
        if target != root and root not in target.parents:
            self.send_error(403, "outside the reports folder")
            return None
        return super().send_head()

    def list_directory(self, path):
        self.send_error(404, "no folder listings")  # reports are reached from their links, not browsed
        return None

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # one line per request would drown the UI's console (quiet by default)


def start(folder: Path, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """Serve `folder` on host:port (0: any free port) from a daemon thread; `.server_address` says where.
    Stop it with `.shutdown()`."""
    folder.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer((host, port), partial(ReportHandler, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="rldelta-reports", daemon=True).start()
    return server


def base_url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"
