"""The read-only reports server `make ui` starts: serves files under the reports folder, refuses
anything that resolves outside it (dot-dot, encoded dot-dot, a symlink out), lists no folders and
answers no write method. Markdown reports open as rendered HTML pages (raw HTML in them shown as text,
no script run), the file itself at `?raw`."""

import http.client
import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rl_assets.support import report_server


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "reports"
    (root / "org__m" / "Q3_trace_pairs").mkdir(parents=True)
    (root / "org__m" / "Q3_trace_pairs" / "pairs.html").write_text("<html>pairs</html>")
    (root / "org__m" / "INDEX.md").write_text("# org/m\n")
    (tmp_path / "secret.txt").write_text("outside")
    (root / "org__m" / "escape").symlink_to(tmp_path / "secret.txt")
    server = report_server.start(root)
    yield report_server.base_url(server), server
    server.shutdown()
    server.server_close()


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, "", ""


def test_serves_report_files_on_localhost(served):
    base, _ = served
    assert base.startswith("http://127.0.0.1:")
    assert _get(f"{base}/org__m/Q3_trace_pairs/pairs.html")[::2] == (200, "<html>pairs</html>")
    status, ctype, body = _get(f"{base}/org__m/INDEX.md?raw")
    assert (status, body) == (200, "# org/m\n") and ctype.startswith("text/markdown")


# what a report holds: a heading, a table, a code span, model-written text with raw HTML and a script link
HOSTILE_REPORT = """# Q1 behavioural delta

| metric | change |
| :--- | ---: |
| reward | 0.188 -> 0.875 |

Copied `global_step_<N>` and p < 0.05.

<script>window.__xss=1</script><img src=x onerror="window.__xss=2">

[click](javascript:window.__xss=3)
"""


def test_markdown_opens_rendered_with_raw_html_as_text(served):
    """Issue 36: reports opened in the browser as raw markdown. Now a page: the heading and table are HTML,
    the model-written tags are text, the script link is no link, and the page may run no script at all."""
    base, server = served
    report = Path(server.RequestHandlerClass.keywords["directory"]) / "org__m" / "report.md"
    report.write_text(HOSTILE_REPORT)
    with urllib.request.urlopen(f"{base}/org__m/report.md", timeout=10) as resp:
        ctype, csp, page = resp.headers["Content-Type"], resp.headers["Content-Security-Policy"], resp.read().decode()
    assert ctype.startswith("text/html") and "script-src" not in csp and "default-src 'none'" in csp
    assert "<h1>Q1 behavioural delta</h1>" in page and re.search(r"<td[^>]*>0.188 -&gt; 0.875</td>", page)
    assert "<code>global_step_&lt;N&gt;</code>" in page
    assert "<script>" not in page and "<img" not in page and 'href="javascript' not in page
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page
    assert _get(f"{base}/org__m/report.md?raw")[2] == HOSTILE_REPORT


def test_a_rendered_report_in_chromium_shows_a_table_and_runs_nothing(served, tmp_path):
    from test_q3_browser import Cdp, find_chromium

    binary = find_chromium()
    if not binary:
        pytest.skip("no Chromium found: run scripts/setup.d/30-chromium.sh")
    base, server = served
    (Path(server.RequestHandlerClass.keywords["directory"]) / "org__m" / "report.md").write_text(HOSTILE_REPORT)
    cdp = Cdp(binary, tmp_path / "profile")
    try:
        cdp.open_page(f"{base}/org__m/report.md", ready="document.querySelector('h1')")
        seen = json.loads(
            cdp.eval(
                "JSON.stringify({xss: typeof window.__xss, h1: document.querySelector('h1').textContent,"
                " cells: [...document.querySelectorAll('td')].map(c => c.textContent),"
                " imgs: document.images.length, links: [...document.links].map(a => a.getAttribute('href')),"
                " text: document.body.innerText.includes('<script>window.__xss=1</script>'),"
                " pipes: document.body.innerText.includes('| :--- |')})"
            )
        )
    finally:
        cdp.close()
    assert seen == {
        "xss": "undefined",
        "h1": "Q1 behavioural delta",
        "cells": ["reward", "0.188 -> 0.875"],
        "imgs": 0,
        "links": ["report.md?raw"],
        "text": True,
        "pipes": False,
    }, seen


@pytest.mark.parametrize(
    "path", ["/../secret.txt", "/org__m/../../secret.txt", "/%2e%2e/secret.txt", "/org__m/escape", "/org__m/"]
)
def test_refuses_what_lies_outside_or_is_a_folder(served, path):
    base, server = served
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=10)  # raw path: urllib would normalise `..`
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read().decode(errors="replace")
    conn.close()
    assert resp.status in (403, 404) and "outside" != body, (path, resp.status, body)


def test_answers_no_write_method(served):
    base, server = served
    host, port = server.server_address[:2]
    for method in ("PUT", "POST", "DELETE"):
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request(method, "/org__m/INDEX.md", body=b"x")
        assert conn.getresponse().status == 501, method
        conn.close()
    assert _get(f"{base}/org__m/INDEX.md?raw")[2] == "# org/m\n"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "", "localhost.evil:{port}"])
def test_answers_only_the_host_it_bound(served, host):
    """A DNS-rebinding page names its own host in Host: answered 421, never with a report."""
    base, server = served
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("GET", "/org__m/INDEX.md", skip_host=True)
    if host:
        conn.putheader("Host", host.format(port=port))
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read().decode(errors="replace")
    conn.close()
    assert resp.status == 421 and "# org/m" not in body, (host, resp.status, body)


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST"])
def test_answers_the_names_of_its_own_address(served, name):
    _, server = served
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("GET", "/org__m/INDEX.md?raw", skip_host=True)
    conn.putheader("Host", f"{name}:{port}")
    conn.endheaders()
    resp = conn.getresponse()
    assert (resp.status, resp.read()) == (200, b"# org/m\n")
    conn.close()


@pytest.fixture
def places(tmp_path, monkeypatch):
    """Every folder rldelta keeps its own state in, under tmp_path: the user's home, rldelta's home (hub,
    cache), the store, the registry's folder and the Dagster instance."""
    home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("RLDELTA_HOME", str(home / ".rldelta"))
    monkeypatch.setenv("RLDELTA_STORAGE", str(tmp_path / "data" / "store"))
    monkeypatch.setenv("RLDELTA_REGISTRY_URL", f"sqlite:///{tmp_path / 'db' / 'registry.sqlite'}")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    for sub in ("user/.rldelta", "data/store", "db", "dagster"):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
    return tmp_path


@pytest.mark.parametrize(
    ("folder", "named"),
    [
        ("/", "/"),
        ("user", "home"),
        ("user/.rldelta", "RLDELTA_HOME"),
        ("data", "RLDELTA_STORAGE"),
        ("data/store", "RLDELTA_STORAGE"),
        ("db", "registry"),
        ("dagster", "DAGSTER_HOME"),
        (".", "DAGSTER_HOME"),
    ],
)
def test_refuses_to_serve_a_folder_holding_state(places, folder, named):
    """RLDELTA_REPORTS set to the home or `/` served the registry, the event log and the hub: refused."""
    target = places / folder if folder != "/" else Path("/")
    with pytest.raises(report_server.ReportsRootError) as err:
        server = report_server.start(target)
        server.shutdown()  # only reached on today's code, which served it
    assert named in str(err.value) and str(target) in str(err.value)


def test_serves_a_reports_folder_beside_the_state(places):
    server = report_server.start(places / "user" / ".rldelta" / "reports")
    try:
        assert report_server.base_url(server).startswith("http://127.0.0.1:")
    finally:
        server.shutdown()
        server.server_close()


def test_make_ui_refuses_a_reports_root_holding_state_before_starting_anything(places, tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "RLDELTA_REPORTS": str(places / "user"), "RLDELTA_UI_PORT": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rl_assets.cli.ui"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # it started dagster dev: SIGTERM makes the supervisor stop its whole tree
        proc.terminate()
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, (proc.returncode, out[-500:], err[-2000:])
    assert "RLDELTA_REPORTS" in err and "Traceback" not in err
    assert "rldelta UI:" not in out  # dagster dev was never started
