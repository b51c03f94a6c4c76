"""On the demo world: the first-divergence highlight lands on the ground-truth divergence action of
every flipped terminal-bench-mini task, and the ground-truth XSS payload is escaped."""

import json

import pytest

from resources.hub import LocalHub
from rl_assets.analysis.q3.pairs import build_pairs
from rl_assets.analysis.q3.pairs_html import render_page
from rl_assets.assets.q3_trace_pairs import LIGHT
from rl_assets.ingest import ingest_source, read_traces


@pytest.fixture(scope="module")
def alpha(demo_world_seed7):
    from rl_assets.demo.constants import ALPHA, BASE, TBM

    built, truth, home = demo_world_seed7
    hub = LocalHub(built.hub_dir)
    tables = []
    for model, name in ((BASE, "base"), (ALPHA, "post")):
        out = home / f"{name}.parquet"
        ingest_source(truth["eval_datasets"][f"{model}|{TBM}"], out, hub=hub)
        tables.append(out)
    frames = [read_traces(p, LIGHT).to_pandas() for p in tables]
    convs = {}
    for p in tables:
        t = read_traces(p, ["trace_id", "conversation"])
        convs.update({tid: json.loads(c) for tid, c in zip(t["trace_id"].to_pylist(), t["conversation"].to_pylist())})
    return truth[TBM][ALPHA], frames, convs


def test_divergence_matches_ground_truth_on_every_flipped_task(alpha):
    truth, (base, post), convs = alpha
    flipped = {f["task"]: f["divergence_action_index"] for f in truth["flipped_tasks"]}
    pairs = build_pairs(base, post, convs, mode="flips", top_n=len(flipped), seed=0)
    got = {p.task_id: p for p in pairs}
    assert set(got) == set(flipped)  # flips mode finds exactly the flipped tasks
    for task, k in flipped.items():
        pair = got[task]
        assert pair.base.shown["attempt"] == 0 and pair.post.shown["attempt"] == 0  # the majority rule picks attempt 0
        assert pair.alignment.divergence == k, task
        assert pair.alignment.base[k].key != pair.alignment.post[k].key


def test_ground_truth_xss_task_is_escaped(alpha):
    truth, (base, post), convs = alpha
    xss_task = truth["xss_task"]
    pairs = [p for p in build_pairs(base, post, convs, mode="flips", top_n=50, seed=0) if p.task_id == xss_task]
    assert pairs, f"xss task {xss_task} not among the selected pairs"
    html = render_page(pairs, model="demo", mode="flips", seed=0, labels=("b", "a"), common_tasks=1)
    assert "window.__xss" in html and "<script>window.__xss" not in html and "<img" not in html
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;" in html
