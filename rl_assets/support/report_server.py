"""The reports folder, served read-only over HTTP on localhost, so a UI user can open report.md,
pairs.html and lineage.md from a link instead of a server path. A markdown file is sent as the page a
browser shows (rendered to HTML by rl_assets/support/report_html.py, raw HTML in it shown as text, no
script run: CSP); `?raw` sends the file as it is.

`make ui` starts it beside `dagster dev` (rl_assets/cli/ui.py) unless RLDELTA_REPORTS_URL already names
where reports are published (object storage in production). Only GET and HEAD are answered; a path
that resolves outside the folder (`..`, an encoded `..`, a symlink pointing out) gets 403.

Two guards keep it to the reports: it refuses to serve a folder that is, or holds, a place rldelta or
Dagster keep state in (`/`, the user's home, rldelta's home, the store, the registry's folder,
DAGSTER_HOME) - RLDELTA_REPORTS set to the home served the registry, the event log and the hub - and it
answers only requests whose Host header names the address it bound (127.0.0.1:<port> or
localhost:<port>), so a page in the user's browser whose own name was rebound to 127.0.0.1 gets 421,
never a report.
"""

from __future__ import annotations

import io
import os
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from rl_assets import settings
from rl_assets.store import local_path
from rl_assets.support.report_html import markdown_page

# A rendered report loads only its own images (plots beside it, or carried inline as data: URIs) and
# inline styles; no script, frame, form or outside request, whatever text a model wrote into it.
CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
# Markdown asked for `?raw` is sent as text, so a browser shows it instead of downloading it.
EXTRA_TYPES = {".md": "text/markdown; charset=utf-8", ".jsonl": "text/plain; charset=utf-8"}


class ReportHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **EXTRA_TYPES}

    def send_head(self):
        host, port = self.server.server_address[:2]
        names = {f"{host}:{port}", f"localhost:{port}"} | ({host, "localhost"} if port == 80 else set())
        if (self.headers.get("Host") or "").strip().lower() not in names:
            self.send_error(421, "this server answers only for " + " or ".join(sorted(names)))
            return None
        root = Path(self.directory).resolve()
        target = Path(self.translate_path(self.path)).resolve()
        if target != root and root not in target.parents:
            self.send_error(403, "outside the reports folder")
            return None
        if (
            target.suffix == ".md"
            and target.is_file()
            and "raw" not in parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        ):
            return self._send_page(markdown_page(target).encode())
        return super().send_head()

    def _send_page(self, body: bytes):
        """Headers of a rendered report; the body is what do_GET copies (HEAD sends the headers only)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        return io.BytesIO(body)

    def list_directory(self, path):
        self.send_error(404, "no folder listings")  # reports are reached from their links, not browsed
        return None

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # one line per request would drown the UI's console (quiet by default)


class ReportsRootError(ValueError):
    """The folder asked to be served holds more than reports."""


def _state_places() -> dict[str, Path]:
    """What must never be served, by the name a user would look for: each folder rldelta or Dagster keeps
    state in, as configured now."""
    places = {"/ (the whole filesystem)": Path("/"), "the user's home ($HOME)": Path.home()}
    places["RLDELTA_HOME (hub, caches, registry)"] = settings.home_dir()
    if (store := local_path(settings.storage_root())) is not None:
        places["RLDELTA_STORAGE (the store)"] = store
    registry = settings.registry_url()
    if registry.startswith("sqlite:///"):
        places["the registry's folder (RLDELTA_REGISTRY_URL)"] = Path(registry.removeprefix("sqlite:///")).parent
    if dagster_home := os.environ.get("DAGSTER_HOME", "").strip():
        places["DAGSTER_HOME (runs, event log)"] = Path(dagster_home)
    return {name: path.expanduser().resolve() for name, path in places.items()}


def check_reports_root(folder: Path) -> Path:
    """`folder`, resolved, if it holds no place of state (it may lie inside one: <home>/reports is the
    default); else ReportsRootError naming the folder and what it holds."""
    folder = Path(folder).expanduser().resolve()
    held = [f"{name} {path}" for name, path in _state_places().items() if path == folder or folder in path.parents]
    if held:
        raise ReportsRootError(
            f"refusing to serve {folder} as the reports folder (RLDELTA_REPORTS): it is or holds "
            + "; ".join(held)
            + ". Point RLDELTA_REPORTS at a folder of reports only, e.g. <RLDELTA_HOME>/reports (the default)."
        )
    return folder


def start(folder: Path, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """Serve `folder` on host:port (0: any free port) from a daemon thread; `.server_address` says where.
    Stop it with `.shutdown()`. A folder holding state is refused (check_reports_root)."""
    folder = check_reports_root(folder)
    folder.mkdir(parents=True, exist_ok=True)
    server = ThreadingHTTPServer((host, port), partial(ReportHandler, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="rldelta-reports", daemon=True).start()
    return server


def make_ui_port(ui_port: int | str | None = None) -> int:
    """The port `make ui` serves the reports on: $RLDELTA_REPORTS_PORT, default the UI port + 1 (`ui_port`,
    else $RLDELTA_UI_PORT, else 3000), so links recorded by runs outside it stay valid across restarts."""
    ui_port = ui_port or os.environ.get("RLDELTA_UI_PORT") or 3000
    return int(os.environ.get("RLDELTA_REPORTS_PORT") or int(ui_port) + 1)


def make_ui_url() -> str:
    """The reports' URL under `make ui` when $RLDELTA_REPORTS_URL is unset (make_ui_port on 127.0.0.1)."""
    return f"http://127.0.0.1:{make_ui_port()}"


def record_links_for_make_ui() -> str:
    """For runs outside `make ui` (`rldelta demo`, `rldelta analyze`): $RLDELTA_REPORTS_URL, set to
    make_ui_url when unset, so their report links open once `make ui` runs (it serves there). Returns it."""
    if not os.environ.get("RLDELTA_REPORTS_URL", "").strip():
        os.environ["RLDELTA_REPORTS_URL"] = make_ui_url()
    return os.environ["RLDELTA_REPORTS_URL"].strip().rstrip("/")


def base_url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    assert isinstance(host, str)  # a TCP server's address (bytes only for a unix socket)
    return f"http://{host}:{port}"
