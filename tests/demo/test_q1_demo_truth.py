"""Q1 recovers the demo world's ground truth on terminal-bench-mini (built, ingested, analysed).

Run at the demo default (scale 1.0: 40 tasks x 3 attempts) and at half size: the generator draws
the "unchanged" features from the same per-task streams on both sides, so they are unchanged at
every scale, and the built-in decreases are large enough to be found on 20 tasks.
"""

import json

import pytest

from resources.hub import LocalHub
from rl_assets.analysis.q1.behavioral_delta import NEEDED, compute_behavioral_delta
from rl_assets.demo.constants import TBM
from rl_assets.demo.world import build_world
from rl_assets.ingest import ingest_source, read_traces


@pytest.fixture(scope="module", params=[1.0, 0.5])
def demo(tmp_path_factory, request):
    home = tmp_path_factory.mktemp("demo-home")
    world = build_world(home, seed=7, scale=request.param, registry=False)
    truth = json.loads(world.ground_truth_path.read_text())
    hub = LocalHub(world.hub_dir)

    def table(model):
        out = home / "tables" / f"{model.replace('/', '--')}.parquet"
        if not out.exists():
            ingest_source(truth["eval_datasets"][f"{model}|{TBM}"], out, hub=hub, benchmark=TBM)
        return read_traces(out, columns=NEEDED)

    return truth, table


@pytest.mark.parametrize("which", [0, 1])
def test_terminal_bench_behaviour_changes_match_ground_truth(demo, which):
    truth, table = demo
    model = truth["models"]["rl"][which]
    r = compute_behavioral_delta(table(truth["models"]["base"]), table(model), n_boot=2000, seed=0)
    facts = truth[TBM][model]
    assert r["invalid_for_comparison"] is None and r["common_tasks"] == facts["tasks"]
    feats = {f["feature"]: f for f in r["features"]}
    for name in ("tool_errors", "think_tokens"):
        assert facts["behaviour_changes"][name] == "decrease"
    for name, change in facts["behaviour_changes"].items():
        f = feats[name]
        if change == "decrease":
            assert f["significant"] and f["delta"] < 0, (model, name, f)
        elif change == "increase":
            assert f["significant"] and f["delta"] > 0, (model, name, f)
        else:
            assert not f["significant"], (model, name, f)
    # the per-trace means agree with the generator's own measurement of the same trials
    measured = facts["measured"]
    assert feats["tool_errors"]["before_all_traces"] == pytest.approx(measured["base"]["tool_errors"], abs=1e-3)
    assert feats["tool_errors"]["after_all_traces"] == pytest.approx(measured["post"]["tool_errors"], abs=1e-3)
    sr = r["before"]["solve_rate"]["rate"], r["after"]["solve_rate"]["rate"]
    assert sr == pytest.approx((facts["solve_rate"]["base"], facts["solve_rate"]["post"]), abs=1e-3)
