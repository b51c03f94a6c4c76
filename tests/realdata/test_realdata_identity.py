"""Task identity on REAL reasoning-gym evaluation files (../shared/realdata/reasoning_gym_paper/).

Qwen2.5-3B-Instruct before RL and after 500 RL steps on the algorithmic category, both evaluated on
the same seeded geometry tasks. Read by hand from the raw JSON: each dataset has
``"total_examples": 100`` and config ``{"size": 100, "seed": 42}``; both files' metadata record
``max_tokens 2048, temperature 0.6, top_p 0.9, eval_repeats 3``.

The post-RL file is then rewritten the way another version of the evaluation script writes it (one
JSON per family beside a summary.json, every config default spelled out in another key order, the
category renamed): the audit must pair and measure exactly as on the file as published.
"""

from __future__ import annotations

import json

import pytest

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.analysis.pairing.pairs import pair_rows
from rl_assets.ingest import ingest_source, read_traces
from rl_assets.values.task_identity import QUESTION_HASH
from support.identity_files import spelled_out
from support.shared_data import SHARED, needs_shared

DATA = SHARED / "realdata" / "reasoning_gym_paper"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=needs_shared(DATA))
FAMILIES = ("advanced_geometry", "simple_geometry")


def _table(spec, tmp_path, name):
    out = tmp_path / f"{name}.parquet"
    ingest_source(str(spec), out, hub=None)
    return read_traces(out, AUDIT_COLUMNS).to_pylist()


def _as_newer_script(src, folder):
    """The same results, written as per-family files with spelled-out configs and a renamed category."""
    data = json.loads(src.read_text())
    meta = data["metadata"]
    for cat in data["categories"]:
        for ds in cat["datasets"]:
            doc = {
                **ds,
                "category": "geometry_eval",
                "config": spelled_out(ds["name"], ds["config"]),
                "completions_per_prompt": meta["eval_repeats"],
            }
            (folder / "geometry_eval").mkdir(parents=True, exist_ok=True)
            (folder / "geometry_eval" / f"{ds['name']}.json").write_text(json.dumps(doc))
    summary = {k: meta[k] for k in ("timestamp", "model", "max_tokens", "temperature", "top_p")}
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("real")
    post = DATA / "algorithmic_qwen_3b_500_to_geometry.json"
    return {
        "base": _table(DATA / "original_to_geometry.json", tmp, "base"),
        "post": _table(post, tmp, "post"),
        "post_newer": _table(_as_newer_script(post, tmp / "newer"), tmp, "newer"),
    }


def test_real_files_pair_every_task_by_question(tables):
    report = pair_rows(tables["base"], tables["post"]).report
    assert [(g["group"], g["paired"], g["only_before"], g["only_after"], g["how"]) for g in report["groups"]] == [
        (f, 100, 0, 0, {QUESTION_HASH: 100}) for f in FAMILIES
    ]
    assert report["settings_differ"] == []  # the same recorded max_tokens/temperature/top_p/repeats


def test_a_rewritten_post_file_pairs_and_measures_the_same(tables):
    newer = tables["post_newer"]
    assert json.loads(newer[0]["task_config"]) != {"size": 100, "seed": 42}  # the spelling really differs
    assert pair_rows(tables["base"], newer).report["settings_differ"] == []  # settings read from summary.json
    published, _ = audit_rows(tables["base"], tables["post"], n_boot=300)
    rewritten, _ = audit_rows(tables["base"], newer, n_boot=300)
    keep = ("family", "n_tasks", "label", "reward_before", "reward_after", "reward_gain", "scorer")
    assert [{k: r[k] for k in keep} for r in rewritten] == [{k: r[k] for k in keep} for r in published]
    assert [r["n_tasks"] for r in published] == [100, 100]
