"""The demo in the Dagster UI, read by a real headless Chromium (`make ui` on a `make demo` home):
every asset page with a materialization shows its plots — loaded, carried in the event itself, not
resolved against the webserver — and no image or table is wider than the dialog that shows it. The
same `dagster dev` answers the GraphQL checks (graph, partitions, check counts, sensors after a
command-line run), so the suite starts one webserver for all of them.

Slow on purpose (a demo run, `dagster dev`, ~20 pages): it is the only test that looks at what a
person sees. Skips only when no Chromium can be found.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_q3_browser import find_chromium

from support import ui_pages
from support.ui_pages import asset_pages, inspect_page, open_page, problems, running_ui, ui_browser
from support.webserver import free_port_pair, graphql, run_demo

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(1500)  # the demo run and dagster dev start-up on a busy 2-core machine
ALPHA = "rldelta-demo/rl-alpha-20-8B"  # the demo checkpoint every question applies to (RL rollouts, logs)
LINEAGE_JOB = "rl-gamma"
# every asset that draws a plot: each must show at least one loaded, embedded image
PLOTS = {
    "solve_rate_by_context",
    "eval_temporal_overlay",
    "model_comparison",
    "training_metrics",
    "rl_temporal",
    "run_lineage",
}


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    if not find_chromium():
        pytest.skip(
            "no Chromium found (RLDELTA_CHROMIUM unset, no chromium on PATH): run scripts/setup.d/30-chromium.sh"
        )
    home = tmp_path_factory.mktemp("ui-demo")
    port = free_port_pair()  # the UI at port, its reports at port + 1: both bound only after the demo
    env = {
        **os.environ,
        "RLDELTA_HOME": str(home),
        "DAGSTER_HOME": str(home / "dagster"),
        "RLDELTA_UI_PORT": str(port),
        "RLDELTA_WATCH_AUTHORS": "no-such-author",
        # served by `make ui` (a URL on this machine); the demo's runs record their report links under it
        "RLDELTA_REPORTS_URL": f"http://127.0.0.1:{port + 1}",
    }
    run_demo(env, ROOT)
    with running_ui(env, port, ROOT):
        yield port, home, env


@pytest.fixture(scope="module")
def command_line_run(ui, tmp_path_factory):
    """`dagster asset materialize` of one asset, started as soon as the UI is up: the sensors react to it
    (INDEX.md, the comparison) in the minute the pages take to read. Yields (the process, the
    model_comparison run before it, its stderr file); test_a_command_line_run_... checks the outcome."""
    port, _, env = ui
    compared = _latest_run(port, "model_comparison")
    dagster = str(Path(sys.executable).with_name("dagster"))
    select = ["--select", "eval_pair", "--partition", ALPHA]
    log = tmp_path_factory.mktemp("cli") / "stderr.txt"  # a file, not a pipe: nobody reads it until the end
    with (
        log.open("w") as stderr,
        subprocess.Popen(
            [dagster, "asset", "materialize", "-m", "rl_assets.definitions", *select],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        ) as cli,
    ):
        try:
            yield cli, compared, log
        finally:
            if cli.poll() is None:
                cli.kill()


@pytest.fixture(scope="module")
def browser(ui, command_line_run, tmp_path_factory):
    # command_line_run: started before the pages are read, so its sensors work meanwhile
    with ui_browser(ui[0], tmp_path_factory.mktemp("chromium-profile")) as cdp:
        yield cdp


def _asset_pages(port: int) -> dict[str, tuple[str, list[str]]]:
    """The demo checkpoint ALPHA for per-model assets, the RL job for the run lineage."""
    return asset_pages(port, lambda name: LINEAGE_JOB if name == "run_lineage" else ALPHA)


def test_the_webserver_serves_the_graph_the_partitions_and_the_materializations(ui):
    """What the UI shows, through the webserver's GraphQL API: the asset graph, the model partitions and
    the materializations of runs made outside it (the demo's runs)."""
    port = ui[0]
    nodes = graphql(port, "{ assetNodes { assetKey { path } } }")["assetNodes"]
    assert {"checkpoint", "eval_pair", "baseline_traces", "post_rl_traces"} <= {
        "/".join(n["assetKey"]["path"]) for n in nodes
    }
    node = graphql(
        port, '{ assetNodeOrError(assetKey: {path: ["checkpoint"]}) { ... on AssetNode { partitionKeys } } }'
    )
    assert ALPHA in node["assetNodeOrError"]["partitionKeys"]
    mats = graphql(
        port,
        f'{{ assetOrError(assetKey: {{path: ["checkpoint"]}}) {{ ... on Asset {{ assetMaterializations(partitions: '
        f'["{ALPHA}"], limit: 1) {{ partition runId }} }} }} }}',
    )["assetOrError"]["assetMaterializations"]
    assert [m["partition"] for m in mats] == [ALPHA] and mats[0]["runId"], mats


def test_every_asset_page_shows_its_plots_embedded_and_nothing_is_cut_off(ui, browser):
    pages = _asset_pages(ui[0])
    assert PLOTS <= set(pages), f"demo left plot assets unmaterialized: {sorted(PLOTS - set(pages))}"
    found, bad = {}, {}
    for name, (url, labels) in sorted(pages.items()):
        assert open_page(browser, url, labels), f"{name}: the materialization's metadata {labels} never showed on {url}"
        found[name] = inspect_page(browser)
        if problems(found[name]):
            bad[name] = problems(found[name])
    assert not bad, bad
    for name in sorted(PLOTS):
        shown = [
            img
            for info in found[name]["dialogs"].values()
            for img in info["images"]
            if img["natural"] > 0 and img["src"].startswith("data:image/png")
        ]
        assert shown, f"{name}: no plot visible on {pages[name][0]} ({found[name]['dialogs'].keys()})"


def test_the_lineage_counts_checks_per_model(ui, browser):
    """The asset graph's "n / m Passed" counts a check as failed while any model's latest result failed, and a
    condition absent by design is not a failure."""
    port = ui[0]
    node = graphql(
        port,
        '{ assetNodeOrError(assetKey: {path: ["checkpoint"]}) { ... on AssetNode { '
        "assetChecksOrError { ... on AssetChecks { checks { name } } } } } }",
    )
    names = [c["name"] for c in node["assetNodeOrError"]["assetChecksOrError"]["checks"]]
    failing = set()
    for name in names:
        latest = {}
        for e in graphql(
            port,
            f'{{ assetCheckExecutions(assetKey: {{path: ["checkpoint"]}}, checkName: "{name}", '
            "limit: 100) { status evaluation { partition } } }",
        )["assetCheckExecutions"]:
            latest.setdefault((e["evaluation"] or {}).get("partition"), e["status"])  # newest first
        failing |= {name} if "FAILED" in latest.values() else set()
    # rl-beta has no RL rollout dataset by design: that check passes as "not applicable", never red
    assert "rl_traces_dataset_exists" in names and "rl_traces_dataset_exists" not in failing, failing
    browser.send("Page.navigate", {"url": f"http://127.0.0.1:{port}/assets/checkpoint?view=lineage"})
    pill = r"checkpoint\s+Latest event\s+[^\n]*\s+Asset checks\s+(\d+) / (\d+) Passed"
    text = ui_pages._wait(
        browser, f"new RegExp({json.dumps(pill)}).test(document.body.innerText) && document.body.innerText", 60
    )
    shown = re.search(pill, text or "")
    assert shown, f"no check summary on the checkpoint node: {(text or '')[:1500]}"
    assert (int(shown[1]), int(shown[2])) == (len(names) - len(failing), len(names))


def _latest_run(port: int, asset: str, partition: str | None = None) -> str | None:
    where = f', partitions: ["{partition}"]' if partition else ""
    mats = graphql(
        port,
        f'{{ assetOrError(assetKey: {{path: ["{asset}"]}}) {{ ... on Asset {{ '
        f"assetMaterializations(limit: 1{where}) {{ runId }} }} }} }}",
    )["assetOrError"]["assetMaterializations"]
    return mats[0]["runId"] if mats else None


def test_a_command_line_run_rewrites_index_md_and_refreshes_the_comparison(ui, command_line_run):
    """`dagster asset materialize` runs carry no code-location origin; the sensors act on them anyway."""
    port, home, env = ui
    cli, compared, log = command_line_run
    assert cli.wait(timeout=600) == 0, log.read_text()[-2000:]
    run_id = _latest_run(port, "eval_pair", ALPHA)
    index = home / "reports" / "rldelta-demo--rl-alpha-20-8B" / "INDEX.md"
    link = f"[`{run_id}`](http://127.0.0.1:{port}/runs/{run_id})"  # whole id, linked: make ui sets RLDELTA_UI_URL
    deadline, refreshed = time.time() + 420, None
    while time.time() < deadline:
        refreshed = _latest_run(port, "model_comparison")
        if link in index.read_text() and refreshed != compared:
            break
        time.sleep(2)
    assert link in index.read_text(), f"INDEX.md never named the command-line run {run_id}"
    assert refreshed != compared, "model_comparison was not re-materialized after the model's run"


def _metadata(port: int, asset: str, partition: str) -> dict[str, str]:
    """label -> url or markdown of the asset's latest materialization for `partition`, as the UI reads it."""
    query = (
        f'{{ assetOrError(assetKey: {{path: ["{asset}"]}}) {{ ... on Asset {{ assetMaterializations(limit: 1, '
        f'partitions: ["{partition}"]) {{ metadataEntries {{ label ... on UrlMetadataEntry {{ url }} '
        "... on MarkdownMetadataEntry { mdStr } } } } } }"
    )
    (mat,) = graphql(port, query)["assetOrError"]["assetMaterializations"]
    return {
        e["label"]: e.get("url") or e.get("mdStr") for e in mat["metadataEntries"] if e.get("url") or e.get("mdStr")
    }


def test_reports_open_from_their_metadata_links(ui, browser):
    """pairs.html and report.md open by URL from the UI (the reports server `make ui` starts), and every
    link in the UI copy of INDEX.md is absolute and answers (the "Run lineage" link included)."""
    port = ui[0]
    pairs = _metadata(port, "trace_pairs", ALPHA)["path_url"]
    assert pairs.startswith(ui[2]["RLDELTA_REPORTS_URL"] + "/") and pairs.endswith("/pairs.html"), pairs
    browser.send("Page.navigate", {"url": pairs})
    title = ui_pages._wait(
        browser, "document.readyState === 'complete' && document.body.innerText.length > 200 && document.title", 60
    )
    assert title and "404" not in title, title
    q1 = _metadata(port, "behavioral_delta", ALPHA)
    with urllib.request.urlopen(q1["report_url"] + "?raw", timeout=20) as resp:  # the file, and inlined in the UI
        assert resp.status == 200 and resp.read().decode().splitlines()[0] == q1["report_content"].splitlines()[0]
    browser.send("Page.navigate", {"url": q1["report_url"]})  # opened from the link: a rendered page
    heading = ui_pages._wait(browser, "document.readyState === 'complete' && document.querySelector('h1')?.textContent")
    assert heading and heading == q1["report_content"].splitlines()[0].lstrip("# "), heading
    index = _metadata(port, "analysis_index", "rldelta-demo/rl-gamma-10-8B")["index"]  # a member of rl-gamma
    links = re.findall(r"\]\(([^)\s]+)\)", index)
    assert any("lineage.md" in link for link in links), index[:2000]
    for link in links:
        assert link.startswith("http://127.0.0.1:"), f"a link the UI cannot resolve: {link}"
        with urllib.request.urlopen(link, timeout=20) as resp:
            assert resp.status == 200, link
