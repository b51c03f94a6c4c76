"""pairs.html in a real headless Chromium: it renders, a message expands on click, and a script
payload inside a trace stays inert text.

Chromium is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: JSON
messages separated by NUL on fds 3/4), so no websocket package and no network port are needed.
Skips only when no Chromium binary can be found (scripts/setup.d/30-chromium.sh installs one).
"""

import base64
import io
import json
import os
import select
import shutil
import subprocess
import time

import pandas as pd
import pytest

from rl_assets.analysis.q3.pairs import build_pairs
from rl_assets.analysis.q3.pairs_html import render_page
from support.q3_synth import XSS, row

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
    "--remote-debugging-pipe",
]


def find_chromium() -> str | None:
    for cand in (os.environ.get("RLDELTA_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "chrome"):
        path = cand and shutil.which(cand)
        if path:
            return path
    return None


class Cdp:
    """Minimal DevTools client over the pipe: send a command, wait for its reply."""

    def __init__(self, binary: str, profile):
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds():  # Chromium reads commands on fd 3 and writes replies on fd 4
            # Copy to fresh fds first: the pipe ends may themselves be 3 or 4 (dup2 onto itself
            # would keep close-on-exec, and a second dup2 could overwrite the first end).
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)  # os.dup2 makes the copies inheritable
            os.dup2(w, 4)

        # close_fds=False: Popen would otherwise close fds 3/4 after preexec_fn ran; every other
        # descriptor Python opened is non-inheritable anyway.
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            close_fds=False,
            preexec_fn=fds,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf, self._id, self.session = b"", 0, None

    def send(self, method: str, params: dict | None = None, timeout: float = 20.0) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    assert "error" not in reply, reply["error"]
                    return reply["result"]
            left = deadline - time.monotonic()
            assert left > 0, f"Chromium did not answer {method} in {timeout}s"
            if select.select([self._r], [], [], left)[0]:
                chunk = os.read(self._r, 1 << 20)
                assert chunk, "Chromium closed the DevTools pipe"
                self._buf += chunk

    def eval(self, expr: str):
        return self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})["result"].get("value")

    def open_page(self, url: str, ready: str = "true", tries: int = 100) -> None:
        """A new tab attached to this client, at `url`, once it is loaded and the JS `ready` holds."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})
        for _ in range(tries):
            if self.eval("document.readyState") == "complete" and self.eval(f"!!({ready})"):
                return
            time.sleep(0.1)

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)
        os.close(self._w)
        os.close(self._r)


@pytest.fixture
def page(tmp_path):
    binary = find_chromium()
    if not binary:
        pytest.skip(
            "no Chromium found (RLDELTA_CHROMIUM unset, no chromium on PATH): run scripts/setup.d/30-chromium.sh"
        )
    base = [row("deploy-app", a, 0.0, ["ls", "cat README.md", "make build", "make test"], extra=XSS) for a in range(3)]
    post = [
        row("deploy-app", a, 1.0, ["ls", "cat README.md", "pip install -e .", "pytest"], side="a") for a in range(3)
    ]
    convs = {r["trace_id"]: json.loads(r["conversation"]) for r in base + post}
    light = [pd.DataFrame(rs).drop(columns="conversation") for rs in (base, post)]
    html = render_page(
        build_pairs(*light, convs), model="org/m", mode="flips", seed=0, labels=("b", "a"), common_tasks=1
    )
    path = tmp_path / "pairs.html"
    path.write_text(html, encoding="utf-8")
    cdp = Cdp(binary, tmp_path / "profile")
    try:
        cdp.open_page(path.as_uri(), ready="document.getElementById('pair-0')")
        yield cdp
    finally:
        cdp.close()


def test_page_renders_expands_on_click_and_never_runs_trace_scripts(page):
    assert page.eval("document.querySelectorAll('section.pair').length") == 1
    # A real mouse click on the summary of a closed message opens it.
    rect = page.eval("""(() => { const d = [...document.querySelectorAll('details.msg')].find(x => !x.open);
        d.id = d.id || 'probe'; d.scrollIntoView(); const r = d.querySelector('summary').getBoundingClientRect();
        return {id: d.id, x: r.left + 20, y: r.top + r.height / 2}; })()""")
    for kind in ("mousePressed", "mouseReleased"):
        page.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": rect["x"], "y": rect["y"], "button": "left", "clickCount": 1},
        )
    assert page.eval(f"document.getElementById({json.dumps(rect['id'])}).open") is True

    assert page.eval("typeof window.__xss") == "undefined"
    assert page.eval("document.querySelectorAll('img').length") == 0
    assert page.eval("document.querySelectorAll('script').length") == 2  # the JSON index and the page's own script
    assert XSS in page.eval("document.querySelector('.col.before').textContent")
    # The divergence banner is there and points at action 2 (two shared actions, then make vs pip).
    assert "diverges at action 2" in page.eval("document.querySelector('.banner').textContent")
    assert page.eval("document.querySelectorAll('details.msg.diverge').length") == 2
    assert page.eval("document.querySelectorAll('#nav a').length") == 1


def test_screenshot_is_a_real_rendering(page):
    from PIL import Image

    png = base64.b64decode(page.send("Page.captureScreenshot", {"format": "png"})["data"])
    assert len(png) > 20_000, f"screenshot only {len(png)} bytes"
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 20) or []
    assert img.size[0] >= 800 and len(colours) > 50, "page looks blank"
