"""Reading an asset page of the Dagster UI in headless Chromium (tests/ui/test_q3_browser.py's Cdp).

What a person sees: the page's metadata table, and every `[Show Markdown]` dialog opened in turn.
For each image: did it load (natural width > 0), does it carry its own pixels (a data: URI, not an
address the webserver would resolve), does it fit the dialog; for each table: does it fit too.
Also the set-up both UI tests share: `running_ui` (dagster dev on a home), `ui_browser` (a tab on
it) and `asset_pages` (the page and metadata labels of every materialized asset).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from support.webserver import graphql, wait_for_graph

# innermost elements reading "[Show Markdown]" (the button and its label span would both match)
_BUTTONS = """[...document.querySelectorAll('button, a, span, div')]
  .filter(e => e.textContent.trim() === '[Show Markdown]'
  && ![...e.children].some(c => c.textContent.trim() === '[Show Markdown]'))"""

_INSPECT = """(async () => {
  const d = document.querySelector('.bp5-dialog');
  if (!d) return null;
  // the markdown renderer is a lazily loaded chunk: wait for its output first (a minute: a loaded CI machine is slow)
  const t0 = Date.now();
  while (!d.querySelector('.dagster-markdown') && Date.now() - t0 < 60000) await new Promise(r => setTimeout(r, 100));
  if (!d.querySelector('.dagster-markdown')) return {error: 'the markdown never rendered'};
  const imgs = [...d.querySelectorAll('img')];
  while (imgs.some(i => !i.complete) && Date.now() - t0 < 10000) await new Promise(r => setTimeout(r, 100));
  const md = d.querySelector('.dagster-markdown') || d;
  const room = md.getBoundingClientRect().width;
  return {
    images: imgs.map(i => ({src: i.getAttribute('src').slice(0, 30), natural: i.naturalWidth,
                            width: Math.round(i.getBoundingClientRect().width)})),
    wide: [...md.querySelectorAll('table, img, pre')].map(e => [e.tagName, Math.round(e.getBoundingClientRect().width)])
          .filter(([, w]) => w > room + 1).map(([t, w]) => `${t} ${w}px > ${Math.round(room)}px`),
  };
})()"""


def _wait(cdp, expr: str, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = cdp.eval(expr)
        except AssertionError as error:  # between two documents Chromium may have no context to evaluate in
            if "context" not in str(error).lower():
                raise
            value = None
        if value:
            return value
        time.sleep(0.05)  # an evaluation costs the page next to nothing; each wait is one per page or dialog
    return None


def skip_welcome(port: int) -> None:
    """Mark the community sign-up dialog as seen on the instance (the `setNuxSeen` mutation its Skip button
    sends), so it never opens. Waiting for it to open and clicking Skip raced it on a busy machine: it opens
    a second after the page's query answers, and when it came late every `[Show Markdown]` dialog read
    below was the sign-up one ("the markdown never rendered", a minute each)."""
    assert graphql(port, "mutation { setNuxSeen }")["setNuxSeen"] is True
    assert graphql(port, "{ shouldShowNux }")["shouldShowNux"] is False


def open_page(cdp, url: str, labels: list[str]) -> bool:
    """Open `url` and wait until every metadata entry of the materialization (`labels`) is on the page.

    Within the UI the app's own router swaps the page (history.pushState and a popstate event, what a
    click on a link does): a full load parses the UI's scripts again, a second of CPU per page. The
    rows of the page being left are marked first, so the old page's table never passes for the new
    one; when the new rows do not come, the page is loaded in full."""
    want = json.dumps(labels)
    target = urllib.parse.urlsplit(url)
    here = urllib.parse.urlsplit(cdp.eval("location.href") or "")
    if labels and (here.scheme, here.netloc) == (target.scheme, target.netloc):
        path = json.dumps(urllib.parse.urlunsplit(("", "", target.path, target.query, target.fragment)))
        cdp.eval(
            "document.querySelectorAll('tr').forEach(r => { r.__rldeltaOld = true; }); "
            f"history.pushState(null, '', {path}); dispatchEvent(new PopStateEvent('popstate')); true"
        )
        first = json.dumps(labels[0])
        fresh = f"[...document.querySelectorAll('tr')].some(r => !r.__rldeltaOld && r.innerText.includes({first}))"
        if _wait(cdp, f"{fresh} && {want}.every(l => document.body.innerText.includes(l))", 30):
            return True
    for _ in range(2):  # one reload when a busy machine left the page half-loaded
        # a mark on the page being left: until it is gone, readyState and innerText are the old document's
        cdp.eval("window.__rldeltaLeaving = true")
        cdp.send("Page.navigate", {"url": url})
        ready = "!window.__rldeltaLeaving && document.readyState === 'complete'"
        if _wait(cdp, f"{ready} && {want}.every(l => document.body.innerText.includes(l))", 60):
            return True
    return False


def inspect_page(cdp, check: str = "") -> dict:
    """{entry label: dialog findings} for every markdown dialog, plus page-level overflow and inline images.
    `check`: a further expression evaluated on the page and in each open dialog (under "check")."""
    found = {
        "page_overflow_px": cdp.eval("document.documentElement.scrollWidth - innerWidth"),
        "inline_images": cdp.eval(
            "JSON.stringify([...document.querySelectorAll('.dagster-markdown img')]"
            ".map(i => [i.getAttribute('src').slice(0, 30), i.naturalWidth]))"
        ),
        "dialogs": {},
        "check": cdp.eval(check) if check else None,
    }
    count = cdp.eval(f"{_BUTTONS}.length") or 0
    for i in range(count):
        label = cdp.eval(
            f"(() => {{ const b = {_BUTTONS}[{i}]; const row = b.closest('tr');"
            f" b.scrollIntoView(); b.click(); return row ? row.innerText.split('\\t')[0].trim() : '#{i}'; }})()"
        )
        if not _wait(cdp, "!!document.querySelector('.bp5-dialog')", 8):
            found["dialogs"][label] = {"error": "the dialog did not open"}
            continue
        found["dialogs"][label] = cdp.send(
            "Runtime.evaluate", {"expression": _INSPECT, "awaitPromise": True, "returnByValue": True}, timeout=75
        )["result"].get("value")
        if check and found["dialogs"][label] is not None:
            found["dialogs"][label]["check"] = cdp.eval(check)
        for kind in ("keyDown", "keyUp"):
            cdp.send(
                "Input.dispatchKeyEvent", {"type": kind, "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27}
            )
        _wait(cdp, "!document.querySelector('.bp5-dialog')", 5)
    found["inline_images"] = json.loads(found["inline_images"] or "[]")
    return found


def problems(found: dict) -> list[str]:
    """Every broken, server-resolved or cut-off image and every table wider than its dialog."""
    out = (
        [f"page wider than the window by {found['page_overflow_px']}px"] if (found["page_overflow_px"] or 0) > 0 else []
    )
    out += [f"inline image {src!r} did not load" for src, natural in found["inline_images"] if not natural]
    for label, info in found["dialogs"].items():
        if not info or "error" in info:
            out.append(f"{label}: {(info or {}).get('error', 'no dialog content')}")
            continue
        for img in info["images"]:
            if not img["src"].startswith("data:image/"):
                out.append(f"{label}: image {img['src']!r} is an address, not embedded pixels")
            if not img["natural"]:
                out.append(f"{label}: image {img['src']!r} did not load")
        out += [f"{label}: {w}" for w in info["wide"]]
    return out


@contextlib.contextmanager
def running_ui(env: dict, port: int, root: Path):
    """`python -m rl_assets.cli.ui` (dagster dev) on `env`'s home until the asset graph is served; the
    whole process tree is stopped afterwards."""
    from rl_assets.cli.ui import is_running, process_tree

    proc = subprocess.Popen(
        [sys.executable, "-m", "rl_assets.cli.ui"],
        cwd=root,
        env={**env, "RLDELTA_UI_PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    tree: dict[int, int] = {}  # pid -> start time (rl_assets.cli.ui.process_tree)
    try:
        assert wait_for_graph(port), "the webserver did not serve the asset graph within 180 s"
        tree = process_tree(proc.pid)
        yield proc
    finally:
        tree |= process_tree(proc.pid)
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        for pid, started in tree.items():
            if is_running(pid, started):
                os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def ui_browser(port: int, profile: Path):
    """A headless Chromium tab (1440x900) on the UI, which will not show its welcome dialog."""
    from test_q3_browser import Cdp, find_chromium

    skip_welcome(port)
    cdp = Cdp(find_chromium(), profile)
    try:
        target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        cdp.session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        cdp.send("Page.enable")
        cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1440, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
        yield cdp
    finally:
        cdp.close()


def asset_pages(port: int, partition_of) -> dict[str, tuple[str, list[str]]]:
    """asset -> (page of the materialization to read, its metadata labels) for every materialized asset;
    `partition_of(name)` names the partition to read for a partitioned asset."""
    data = graphql(
        port,
        "{ assetsOrError { ... on AssetConnection { nodes { key { path } "
        "assetMaterializations(limit: 1) { partition } } } } }",
    )
    pages = {}
    for node in data["assetsOrError"]["nodes"]:
        if not node["assetMaterializations"]:
            continue
        name = "/".join(node["key"]["path"])
        url, partition = f"http://127.0.0.1:{port}/assets/{name}", ""
        if node["assetMaterializations"][0]["partition"]:
            partition = partition_of(name)
            url += "?" + urllib.parse.urlencode({"view": "partitions", "partition": partition})
        mats = graphql(
            port,
            f'{{ assetOrError(assetKey: {{path: ["{name}"]}}) {{ ... on Asset {{ assetMaterializations('
            f"limit: 1{', partitions: [' + json.dumps(partition) + ']' if partition else ''}) "
            "{ metadataEntries { label } } } } }",
        )["assetOrError"]["assetMaterializations"]
        if mats:
            pages[name] = (url, [e["label"] for e in mats[0]["metadataEntries"]])
    return pages
