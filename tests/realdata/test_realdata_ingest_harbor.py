"""Real Harbor job output (claude-code runs from github.com/xdotli/harbor-datagen, trimmed to
structure and numbers: tests/fixtures/realdata/harbor_datagen/PROVENANCE.txt).

The repository's layout is the one issue 13 saw lose trials: two job folders (job result.json +
one trial each) and one bare trial folder, at depths 3 and 4 under the root. Every expected value
below was read from the files with the grep shown, never produced by rldelta.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from rl_assets.ingest import ingest_source, read_traces

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "realdata" / "harbor_datagen"
AUTH = REAL / "auth_token_race_condition/example_runs/successful_run_2025-11-19"
ETL = REAL / "etl_checkpoint_resume_bug/example_runs/run_2025-11-19__14-39-23"

# Per trial, from <trial>/result.json (grep -n '"task_name"\|"trial_name"\|"reward"\|"n_.*_tokens"'):
#   line 3 task_name, line 4 trial_name, lines 56-58 n_input/n_cache/n_output_tokens, line 65 reward
# and <trial>/agent/trajectory.json: grep -c '"source": "agent"' (agent steps), grep -c
# '"function_name"' (tool calls), grep -c '"source_call_id"' (observation results), the largest
# '"prompt_tokens": N', and '"total_completion_tokens"' in final_metrics.
EXPECTED = {
    "draft_dp_96443054__fSr5gkt": dict(
        task="draft_dp_96443054",
        reward=1.0,
        input=1706720,
        cached=1704467,
        output=20144,
        agent_steps=71,
        tool_calls=43,
        observations=42,
        peak=42481,
    ),
    "etl_checkpoint_resume_bug__cdwMJ5R": dict(
        task="etl_checkpoint_resume_bug",
        reward=0.0,
        input=672997,
        cached=668601,
        output=12778,
        agent_steps=47,
        tool_calls=31,
        observations=31,
        peak=30392,
    ),
    "fix-async-worker-queue__gPApBGF": dict(
        task="fix-async-worker-queue",
        reward=0.0,
        input=1114893,
        cached=1109340,
        output=14550,
        agent_steps=50,
        tool_calls=33,
        observations=30,
        peak=30626,
    ),
}


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))


def test_mixed_job_folders_and_bare_trial_ingest_all_three(tmp_path):
    rep = ingest_source(str(REAL), tmp_path / "o.parquet", hub=None)
    acc = rep.accounting
    rows = {r["trial_name"]: r for r in read_traces(tmp_path / "o.parquet").to_pylist()}
    assert set(rows) == set(EXPECTED)
    # 3 trial folders + 2 job result.json files read; PROVENANCE.txt is not trace data (by design)
    assert (acc["units"], acc["found"], acc["written"], acc["lost"]) == ("trials", 3, 3, 0)
    assert (acc["inputs_found"], acc["inputs_read"], acc["not_read"]) == (6, 5, {"not a trace data file": 1})
    for trial, want in EXPECTED.items():
        r = rows[trial]
        assert (r["task_id"], r["reward"], r["passed"], r["error_type"]) == (
            want["task"],
            want["reward"],
            want["reward"] == 1.0,
            None,
        )
        assert (r["input_tokens"], r["cached_tokens"], r["output_tokens"]) == (
            want["input"],
            want["cached"],
            want["output"],
        )
        assert (r["agent"], r["model"]) == ("claude-code", "claude-sonnet-4-5")  # result.json agent_info
        assert r["n_turns"] == want["agent_steps"] and r["tool_calls_total"] == want["tool_calls"]
        assert r["tool_responses"] == want["observations"] and r["peak_prompt_tokens"] == want["peak"]
        # every agent step records completion_tokens (grep -c '"completion_tokens"' = agent steps),
        # so the recorded sum is used; it equals final_metrics.total_completion_tokens
        assert r["token_source"] == "recorded" and r["assistant_tokens"] == want["output"]


def test_phase_timings_and_date_of_a_bare_trial(tmp_path):
    # ETL/result.json: "started_at": "2025-11-19T14:39:23.715998" (naive: read as UTC) and
    # environment_setup 14:39:23.718276 -> 14:39:25.957646
    rep = ingest_source(str(ETL), tmp_path / "o.parquet", hub=None)
    row = read_traces(tmp_path / "o.parquet").to_pylist()[0]
    assert rep.rows_written == 1 and row["trial_name"] == "etl_checkpoint_resume_bug__cdwMJ5R"
    assert row["date"] == datetime(2025, 11, 19, 14, 39, 23, 715998, tzinfo=UTC)
    assert row["env_setup_s"] == pytest.approx(2.239370)


def test_a_job_folder_alone_and_its_trajectory_file(tmp_path):
    job = ingest_source(str(AUTH), tmp_path / "job.parquet", hub=None)
    assert (job.rows_written, job.accounting["inputs_read"]) == (1, 2)  # the trial + the job's result.json
    traj = AUTH / "draft_dp_96443054__fSr5gkt" / "agent" / "trajectory.json"
    alone = ingest_source(str(traj), tmp_path / "traj.parquet", hub=None)  # read as its trial
    a, b = (read_traces(tmp_path / n).to_pylist()[0] for n in ("job.parquet", "traj.parquet"))
    assert alone.source_kind == "harbor" and a["trial_name"] == b["trial_name"] and a["n_turns"] == b["n_turns"] == 71
