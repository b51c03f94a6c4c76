"""The read-only reports server `make ui` starts: serves files under the reports folder, refuses
anything that resolves outside it (dot-dot, encoded dot-dot, a symlink out), lists no folders and
answers no write method."""

import http.client
import urllib.error
import urllib.request

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
    status, ctype, body = _get(f"{base}/org__m/INDEX.md")
    assert (status, body) == (200, "# org/m\n") and ctype.startswith("text/markdown")


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
    assert _get(f"{base}/org__m/INDEX.md")[2] == "# org/m\n"
