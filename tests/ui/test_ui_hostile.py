"""The hostile corpus of tests/ui/test_hostile_markdown.py in one partition's inputs — task ids,
benchmarks, error types, tool names, the trace source, a valid model id whose underscores would
open emphasis — materialized through the real assets, then read on the Dagster UI's asset pages in
headless Chromium: every page and every `[Show Markdown]` dialog shows no injected element and no
script ran.
"""

import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_hostile_markdown import HOSTILE
from test_q3_browser import find_chromium

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.llm import LLMResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.failure_modes import failure_modes
from rl_assets.assets.q1_behavioral_delta import behavioral_delta
from rl_assets.assets.q1_llm_judge import judge_verdicts
from rl_assets.assets.q3_trace_pairs import trace_pairs
from rl_assets.definitions import analysis_index
from rl_assets.values.handover import TraceTableRef
from support.handover_refs import trace_ref
from support.llm_server import write_trace_table
from support.ui_pages import asset_pages, inspect_page, open_page, running_ui, ui_browser
from support.webserver import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.timeout(900)  # dagster dev start-up on a busy 2-core machine
MODEL = "org/x.__pwn__"  # valid (rl_assets/partitions.py allows letters, digits, . _ -): bold if unescaped
N_TASKS = 2 * len(HOSTILE)

# What an injection would leave in rendered markdown (`root` = the page or an open dialog), and whether
# a payload ran; JSON so the DevTools reply carries it whole.
INJECTED = """JSON.stringify((() => {
  const root = document.querySelector('.bp5-dialog') || document.body;
  const all = [...root.querySelectorAll('*')];
  const text = e => e.textContent.trim();
  const md = [...root.querySelectorAll('.dagster-markdown')].map(e => e.textContent).join(' ');
  return {
    shown: ['window.__xss=1', 'Injected heading', 'x.__pwn__'].filter(t => md.includes(t)),
    ran: typeof window.__xss !== 'undefined',
    script: root.querySelectorAll('.dagster-markdown script').length,
    on_attr: all.filter(e => e.closest('.dagster-markdown') && [...e.attributes].some(a => a.name.startsWith('on')))
                .map(e => e.outerHTML.slice(0, 80)),
    js_href: all.filter(e => /^\\s*javascript:/i.test(e.getAttribute('href') || '')).map(e => e.outerHTML.slice(0, 80)),
    img: [...root.querySelectorAll('.dagster-markdown img')].filter(i => !i.src.startsWith('data:image/')).length,
    heading: [...root.querySelectorAll('.dagster-markdown h1, .dagster-markdown h2, .dagster-markdown h3')]
                .map(text).filter(t => /Injected heading|heading id/.test(t)),
    table: [...root.querySelectorAll('.dagster-markdown th')].map(text).filter(t => t === 'a' || t === 'b'),
    list_quote: [...root.querySelectorAll('.dagster-markdown blockquote, .dagster-markdown li')].map(text)
                .filter(t => /^(quote|item)\\b/.test(t)),
    emphasis: [...root.querySelectorAll('.dagster-markdown strong, .dagster-markdown em, .dagster-markdown del, '
                + '.dagster-markdown b, .dagster-markdown s')].map(text).filter(t => /^(pwn|struck|bold)$/.test(t)),
  };
})())"""


def _hostile_side(folder, side: str) -> TraceTableRef:
    """write_trace_table's rows with task ids, benchmarks, error types and tool names from the corpus."""
    path = write_trace_table(folder / f"{side}.parquet", N_TASKS, side)
    table = pq.read_table(path)
    n = lambda tid: int(tid.split("-")[1])  # noqa: E731 - "task-007" -> 7
    task = [f"{HOSTILE[n(t) % len(HOSTILE)]} {n(t)}" for t in table["task_id"].to_pylist()]
    bench = [HOSTILE[n(t) % 3] for t in table["task_id"].to_pylist()]
    passed = table["passed"].to_pylist()
    errors = [None if ok else HOSTILE[i % len(HOSTILE)] for i, ok in enumerate(passed)]
    tools = [json.dumps({HOSTILE[i % len(HOSTILE)]: 2, "bash": 1}) for i in range(table.num_rows)]
    for name, values in (
        ("task_id", task),
        ("benchmark", bench),
        ("error_type", errors),
        ("tool_calls_by_name", tools),
    ):
        table = table.set_column(
            table.schema.get_field_index(name), name, pa.array(values, table.schema.field(name).type)
        )
    pq.write_table(table, path)
    return trace_ref(path, f"{side} {HOSTILE[3]}", rows=table.num_rows, revision=HOSTILE[0])


@pytest.fixture
def hostile_home(rldelta_home, tmp_path, monkeypatch, materialize_partition):
    """The home instance (as `make ui` opens it) with the analysis assets materialized on hostile inputs."""
    monkeypatch.setenv("DAGSTER_HOME", str(rldelta_home / "dagster"))
    from rl_assets.cli.instance import open_instance

    instance = open_instance()
    instance.add_dynamic_partitions("models", [MODEL])
    tables = rldelta_home / "storage"  # in the store root: stored values name no other place
    tables.mkdir(parents=True, exist_ok=True)
    stubs = {"baseline_traces": _hostile_side(tables, "base"), "post_rl_traces": _hostile_side(tables, "post")}
    resources = {
        "settings": AnalysisSettings(n_boot=200),
        "llm": LLMResource(),
        "hub": HubResource(),
        "io_manager": RlDeltaIOManager(),
    }
    first = materialize_partition(
        [behavioral_delta, trace_pairs, failure_modes, judge_verdicts],
        MODEL,
        stubs=stubs,
        resources=resources,
        instance=instance,
        raise_on_error=False,
    )
    done = {e.asset_key.to_user_string() for e in first.get_asset_materialization_events()}
    assert {"behavioral_delta", "trace_pairs", "failure_modes", "judge_verdicts"} <= done, done
    # the audit's stored value as the INDEX findings read it, with hostile family names and labels (the
    # audit itself re-scores reasoning-gym families, which a hostile name cannot be)
    audit = {"rows": [{"family": h, "label": h} for h in HOSTILE]}
    assert materialize_partition(
        [], MODEL, stubs={"learning_audit": audit}, instance=instance, resources={"io_manager": RlDeltaIOManager()}
    ).success
    assert materialize_partition([analysis_index], MODEL, instance=instance).success  # reads the run above
    return rldelta_home


def test_asset_pages_show_the_hostile_corpus_as_inert_text(hostile_home, tmp_path):
    if not find_chromium():
        pytest.skip(
            "no Chromium found (RLDELTA_CHROMIUM unset, no chromium on PATH): run scripts/setup.d/30-chromium.sh"
        )
    port = free_port()
    env = {**os.environ, "RLDELTA_WATCH_AUTHORS": "no-such-author"}
    with running_ui(env, port, ROOT), ui_browser(port, tmp_path / "chromium") as cdp:
        pages = asset_pages(port, lambda name: MODEL)
        assert {"behavioral_delta", "trace_pairs", "judge_verdicts", "analysis_index"} <= set(pages), sorted(pages)
        shown, bad = {}, {}
        for name, (url, labels) in sorted(pages.items()):
            assert open_page(cdp, url, labels), f"{name}: metadata {labels} never showed on {url}"
            found = inspect_page(cdp, INJECTED)
            for where, info in [("page", {"check": found["check"]}), *found["dialogs"].items()]:
                assert info and info.get("check"), f"{name} {where}: {info}"
                got = json.loads(info["check"])
                shown[f"{name} {where}"] = got.pop("shown")
                hits = {k: v for k, v in got.items() if v}
                if hits:
                    bad[f"{name} {where}"] = hits
        title = cdp.eval("document.title")
    assert not bad, bad
    # the corpus did reach the markdown the UI rendered (as text): the checks above looked at something
    assert {t for ts in shown.values() for t in ts} == {"window.__xss=1", "Injected heading", "x.__pwn__"}, shown
    assert shown["analysis_index index"] and shown["trace_pairs selected"] and shown["judge_verdicts summary"], shown
    assert "__xss" not in title and "pwn" not in title.lower()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-x", "-q"]))
