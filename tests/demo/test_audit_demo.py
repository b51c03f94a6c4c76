"""The audit recovers the demo world's ground-truth label for every reasoning-gym family."""

from __future__ import annotations

import pytest

from resources.hub import LocalHub
from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.ingest import ingest_source, read_traces


@pytest.fixture(scope="module")
def world(demo_world_seed7):
    return demo_world_seed7


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
    assert got == want, {
        f: (got.get(f), want[f], next(r["explanation"] for r in rows if r["family"] == f))
        for f in want
        if got.get(f) != want[f]
    }
