"""Real-data conformance of the ingest ledger over ../shared (skips when it is absent):
Harbor golden files (fixtures/harbor_golden, see its PROVENANCE.txt) and a real model's
reasoning-gym results before and after RL (realdata/reasoning_gym_paper, see PROVENANCE.txt).
Expected numbers were read from the files with the commands quoted, never produced by rldelta.
"""

from __future__ import annotations

import pytest

from rl_assets.ingest import ingest_source, read_traces
from rl_assets.ingest.plan import REDUCED
from support.shared_data import SHARED, needs_shared

GOLDEN = SHARED / "fixtures" / "harbor_golden"
RG = SHARED / "realdata" / "reasoning_gym_paper"
pytestmark = pytest.mark.skipif(
    not (GOLDEN.is_dir() and RG.is_dir()), reason=needs_shared(GOLDEN if not GOLDEN.is_dir() else RG)
)
ATIF_BESIDE_ROWS = "ATIF trajectory among other data files (ingest it on its own)"


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))


def test_golden_jsonl_folder_one_trial_key_many_files(tmp_path):
    # `wc -l derived_jsonl/*.jsonl` -> 1+1+1+7+4+2+2 = 18 rows in 7 files; grep -o '"trial_name": ...'
    # -> every row is trial NORMALIZED_TRIAL_NAME of task harbor/hello-world (the goldens normalize
    # the name), and the highest '"episode": "episode-N"' is episode-6, once (context-summarization).
    rep = ingest_source(str(GOLDEN / "derived_jsonl"), tmp_path / "o.parquet", hub=None)
    acc = rep.accounting
    assert (acc["found"], acc["written"], acc["merged"], acc["lost"]) == (18, 1, {REDUCED: 17}, 0)
    assert (acc["inputs_found"], acc["inputs_read"]) == (7, 7)
    row = read_traces(tmp_path / "o.parquet").to_pylist()[0]
    assert (row["task_id"], row["trial_name"], row["episode"]) == ("harbor/hello-world", "NORMALIZED_TRIAL_NAME", 6)


def test_golden_terminus_folder_lists_the_trajectories_it_does_not_read(tmp_path):
    # `ls terminus_2`: 13 files, 5 *.traces.json arrays (1+1+1+7+4 = 14 rows: python -c
    # 'len(json.load(f))') and 8 ATIF trajectory files (*.trajectory*.json) that a folder of rows
    # does not read -- listed as lost, so the check says so instead of dropping them silently.
    rep = ingest_source(str(GOLDEN / "terminus_2"), tmp_path / "o.parquet", hub=None)
    acc = rep.accounting
    assert (acc["found"], acc["written"], sum(acc["merged"].values())) == (14, 1, 13)
    assert (acc["inputs_found"], acc["inputs_read"], acc["not_read"]) == (13, 5, {ATIF_BESIDE_ROWS: 8})
    assert acc["lost"] == 8


# original_to_geometry.json etc.: two datasets (advanced_geometry, simple_geometry), 100 results
# each ('"total_examples": 100'), 3 completions per result ('"eval_repeats": 3'); grep -c
# '"score"' <file> -> 600. The recorded per-family mean is '"average_score"' on lines 19
# (advanced_geometry) and 2331 (simple_geometry) of each file.
AVERAGE_SCORE = {
    "original_to_geometry.json": (0.013333333333333332, 0.003333333333333333),
    "algorithmic_qwen_3b_500_to_geometry.json": (0.17, 0.2933333333333333),
    "games_qwen_3b_500_to_geometry.json": (0.026666666666666665, 0.11000000000000001),
}


@pytest.mark.parametrize("name", sorted(AVERAGE_SCORE))
def test_reasoning_gym_paper_file_every_completion_accounted(name, tmp_path):
    rep = ingest_source(str(RG / name), tmp_path / "o.parquet", hub=None)
    acc = rep.accounting
    assert (acc["units"], acc["found"], acc["written"], acc["lost"]) == ("completions", 600, 600, 0)
    rows = read_traces(tmp_path / "o.parquet", columns=["task_family", "reward", "trace_id"]).to_pylist()
    assert len({r["trace_id"] for r in rows}) == 600
    for family, recorded in zip(("advanced_geometry", "simple_geometry"), AVERAGE_SCORE[name]):
        rewards = [r["reward"] for r in rows if r["task_family"] == family]
        assert len(rewards) == 300 and sum(rewards) / 300 == pytest.approx(recorded, abs=1e-12)


def test_reasoning_gym_paper_folder(tmp_path):
    # the folder: 3 eval files (3 x 600 completions) + PROVENANCE.txt (not trace data, by design)
    rep = ingest_source(str(RG), tmp_path / "o.parquet", hub=None)
    acc = rep.accounting
    assert (acc["found"], acc["written"], acc["lost"]) == (1800, 1800, 0)
    assert (acc["inputs_found"], acc["inputs_read"], acc["not_read"]) == (4, 3, {"not a trace data file": 1})
    ids = read_traces(tmp_path / "o.parquet", columns=["trace_id"]).column("trace_id").to_pylist()
    assert len(set(ids)) == 1800
