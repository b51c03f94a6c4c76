"""The audit recovers the demo world's ground-truth label for every reasoning-gym family."""

from __future__ import annotations

import json

import pytest

from resources.hub import LocalHub
from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.ingest import ingest_source, read_traces

demo = pytest.importorskip("rl_assets.demo.world", reason="demo world generator not available")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    home = tmp_path_factory.mktemp("demo")
    built = demo.build_world(home, seed=7, registry=False)
    truth = json.loads(built.ground_truth_path.read_text())
    return built, truth, home


def _table(hub, dataset: str, out):
    ingest_source(dataset, out, hub=hub)
    return read_traces(out, AUDIT_COLUMNS).to_pylist()


@pytest.mark.parametrize("model_index", [0, 1])
def test_every_family_label_matches_ground_truth(world, model_index):
    from rl_assets.demo.constants import BASE, RG

    built, truth, home = world
    model = truth["models"]["rl"][model_index]
    hub = LocalHub(built.hub_dir)
    before = _table(hub, truth["eval_datasets"][f"{BASE}|{RG}"], home / f"base-{model_index}.parquet")
    after = _table(hub, truth["eval_datasets"][f"{model}|{RG}"], home / f"post-{model_index}.parquet")
    rows, _ = audit_rows(before, after, n_boot=1000, seed=0)
    got = {r["family"]: r["label"] for r in rows}
    want = {family: fact["label"] for family, fact in truth[RG][model].items()}
    assert got == want, {f: (got.get(f), want[f], next(r["explanation"] for r in rows if r["family"] == f))
                         for f in want if got.get(f) != want[f]}
