"""End to end from files alone: reasoning-gym eval files of two models -> ingest -> audit."""

from __future__ import annotations

import json

import pytest

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.ingest import ingest_source, read_traces
from support.audit_synth import scenario, write_eval_files


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    before, after, expected = scenario()
    root = tmp_path_factory.mktemp("rg")
    tables = {}
    for side, rows in (("base", before), ("post", after)):
        write_eval_files(rows, root / side)
        out = root / f"{side}.parquet"
        ingest_source(str(root / side), out, hub=None)
        tables[side] = read_traces(out, AUDIT_COLUMNS).to_pylist()
    return tables, expected


def test_ingest_keeps_task_identity(ingested):
    tables, _ = ingested
    row = next(r for r in tables["post"] if r["task_family"] == "chain_sum" and r["task_index"] == 3)
    assert row["task_config"] and row["question"] and row["conversation"]


def test_labels_from_eval_files_alone(ingested):
    tables, expected = ingested
    rows, _ = audit_rows(tables["base"], tables["post"], n_boot=500, seed=0)
    assert {r["family"]: r["label"] for r in rows} == expected
    for r in rows:  # every scored family was re-scored with its own scorer from the files
        assert r["scorer"].startswith("reasoning-gym"), r


def test_a_config_that_generates_other_questions_pairs_no_task(ingested):
    """Seed 1 instead of the file's seed: other questions, so no task pairs, and the family says
    "no task in common" (its own label), never "not enough data"."""
    import reasoning_gym

    tables, _ = ingested
    post = [r for r in tables["post"] if r["task_family"] == "leg_counting"]
    config = {**json.loads(post[0]["task_config"]), "seed": 1}
    regenerated = reasoning_gym.create_dataset("leg_counting", **config)
    shifted = [
        dict(
            r,
            task_config=json.dumps(config),
            task_key=None,
            task_key_source=None,
            question=regenerated[r["task_index"]]["question"],
        )
        for r in post
    ]
    base = [r for r in tables["base"] if r["task_family"] == "leg_counting"]
    (row,), _ = audit_rows(base, shifted, n_boot=200)
    assert row["n_tasks"] == 0 and row["label"] == "not compared: no task in common"
    assert row["tasks_only_before"] == len({r["task_index"] for r in base})


def test_a_config_spelled_differently_still_pairs(ingested):
    """Same questions, config text changed (another seed written, a new field): identity is the question."""
    tables, expected = ingested
    post = [
        dict(r, task_config=json.dumps({**json.loads(r["task_config"]), "seed": 1, "new_field": True}))
        for r in tables["post"]
        if r["task_family"] == "leg_counting"
    ]
    base = [r for r in tables["base"] if r["task_family"] == "leg_counting"]
    (row,), _ = audit_rows(base, post, n_boot=200)
    assert row["n_tasks"] == len({r["task_index"] for r in base}) and row["label"] == expected["leg_counting"]
    assert row["scorer"].startswith("reasoning-gym")  # regenerated from the baseline's config, which matches
