"""`make demo` then `make ui`, the README's order, with nothing else set (issue 36: the UI then showed no
report link at all, the reports opened as raw markdown, reward_integrity had no link, and the .md files
read `0.2 -&gt; 0.8`).

One `rldelta demo --run` (what `make demo` runs) with RLDELTA_REPORTS_URL unset, then the reports server
as `make ui` starts it (rl_assets/cli/ui.py `_reports_url`, the same environment): every asset that
wrote a report file records its link at `make ui`'s address, every link opens there, a markdown report
opens as an HTML page, and no .md file holds an HTML escape where plain text serves.
"""

import json
import os
import re
import urllib.request
from pathlib import Path

import dagster as dg
import pytest

from rl_assets.assets import ANALYSES
from support.webserver import free_port_pair, run_demo

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(1200)
ALPHA = "rldelta-demo/rl-alpha-20-8B"  # every question applies to it
VERL = "rldelta-demo/rl-verl-hack-8B"  # training logs only: reward_integrity's own report


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    home = tmp_path_factory.mktemp("demo-links")
    ui_port = free_port_pair()  # the reports are linked at ui_port + 1: both stay free for the test
    env = {k: v for k, v in os.environ.items() if k not in ("RLDELTA_REPORTS_URL", "RLDELTA_REPORTS_PORT")}
    env |= {"RLDELTA_HOME": str(home), "DAGSTER_HOME": str(home / "dagster"), "RLDELTA_UI_PORT": str(ui_port)}
    run = run_demo(env, ROOT)
    assert f"open at http://127.0.0.1:{ui_port + 1}" in run.stdout, run.stdout[-600:]
    return home, ui_port, env


def _links(home: Path) -> dict[str, dict[str, str]]:
    """asset (partition) -> {metadata key: value} of each latest materialization's path and URL entries."""
    out = {}
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        wanted = [(k.to_user_string(), ALPHA) for _, assets in ANALYSES for a in assets for k in a.keys]
        wanted += [("analysis_index", ALPHA), ("reward_integrity", VERL), ("run_lineage", "rl-gamma")]
        wanted.append(("model_comparison", None))
        for asset, partition in wanted:
            kw = {"partition": partition} if partition else {}
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(
                    asset_key=dg.AssetKey(asset), asset_partitions=[partition] if partition else None
                ),
                limit=1,
            ).records
            assert records, f"{asset} {kw}: never materialized by the demo"
            meta = records[0].asset_materialization.metadata
            out[f"{asset} {partition or ''}".strip()] = {
                k: str(v.value) for k, v in meta.items() if isinstance(v, dg.PathMetadataValue | dg.UrlMetadataValue)
            }
    return out


def test_every_report_file_is_linked_at_the_make_ui_address_and_opens_there(demo, monkeypatch):
    home, ui_port, env = demo
    links = _links(home)
    reports = (home / "reports").resolve()
    base = f"http://127.0.0.1:{ui_port + 1}/"
    missing, urls = [], {}
    for asset, meta in links.items():
        for key, value in meta.items():
            if key.endswith("_url") or not Path(value).resolve().is_relative_to(reports):
                continue
            url = meta.get(f"{key}_url")
            if not url or not url.startswith(base):
                missing.append(f"{asset}: {key} {value} has link {url!r}")
            else:
                urls[f"{asset} {key}"] = url
    assert not missing, missing
    assert any(k.startswith("reward_integrity " + VERL) for k in urls), sorted(urls)

    # `make ui` on the same environment: the reports server it starts answers every recorded link
    from rl_assets.cli import ui

    for name in ("RLDELTA_HOME", "DAGSTER_HOME", "RLDELTA_UI_PORT"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("RLDELTA_REPORTS_URL", raising=False)
    served, server = ui._reports_url(env["RLDELTA_UI_PORT"])
    try:
        assert served + "/" == base
        bad = {}
        for name, url in sorted(urls.items()):
            with urllib.request.urlopen(url, timeout=20) as resp:
                ctype = resp.headers["Content-Type"]
                if resp.status != 200 or (url.endswith(".md") and not ctype.startswith("text/html")):
                    bad[name] = (resp.status, ctype)
        assert not bad, bad
    finally:
        server.shutdown()
        server.server_close()


# An HTML escape a writer need not have made: `&gt;`/`&quot;` anywhere, `&amp;` before no entity, and `&lt;`
# before what could not open a tag. Code spans and fenced code are left out (shown verbatim there).
_NEEDLESS = re.compile(r"&gt;|&quot;|&amp;(?!#?\w+;)|&lt;(?![A-Za-z/!?])")
_CODE = re.compile(r"^```.*?^```|(`+).+?\1", re.S | re.M)


def test_no_report_holds_a_needless_html_escape(demo):
    home = demo[0]
    found = {}
    for md in sorted((home / "reports").rglob("*.md")):
        for line in _CODE.sub("", md.read_text()).splitlines():
            if _NEEDLESS.search(line):
                found.setdefault(str(md.relative_to(home)), line[:160])
    assert not found, json.dumps(found, indent=1)


def test_make_ui_says_when_the_recorded_links_port_is_taken(monkeypatch, tmp_path, capsys):
    """Links recorded by `make demo` point at the UI port + 1; when that port is busy `make ui` serves
    elsewhere and says the recorded links will not open there, instead of leaving dead links unexplained."""
    import socket

    from rl_assets.cli import ui

    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path))
    monkeypatch.delenv("RLDELTA_REPORTS_URL", raising=False)
    monkeypatch.delenv("RLDELTA_REPORTS_PORT", raising=False)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        served, server = ui._reports_url(str(taken - 1))
        try:
            assert not served.endswith(f":{taken}")
            err = capsys.readouterr().err
            assert f"port {taken} is taken" in err and f"http://127.0.0.1:{taken} and will not open" in err
        finally:
            server.shutdown()
            server.server_close()
