"""Harbor result.json phase timings, token counts and cost; ATIF final_metrics fallback and
subagent counting (generated trial folders in tmp_path + the shared golden files)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rl_assets.ingest import ADDED_COLUMNS, ingest_source, read_traces
from rl_assets.ingest.rows import duration_s
from rl_assets.schema import LIGHT_COLUMNS, trace_schema
from support.shared_data import SHARED, needs_shared

GOLDEN = SHARED / "fixtures" / "harbor_golden"
NEW = (
    "env_setup_s",
    "agent_setup_s",
    "agent_exec_s",
    "verifier_s",
    "trial_s",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost_usd",
    "n_subagents",
)


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))


def _steps(texts: list[str], refs: list | None = None) -> list:
    steps = [{"step_id": 1, "source": "user", "message": "solve"}]
    for k, text in enumerate(texts):
        steps.append(
            {
                "step_id": k + 2,
                "source": "agent",
                "message": text,
                "metrics": {"prompt_tokens": 100 * (k + 1), "completion_tokens": 10},
            }
        )
    if refs:
        steps.append(
            {
                "step_id": len(steps) + 1,
                "source": "system",
                "message": "delegated",
                "observation": {"results": [{"subagent_trajectory_ref": refs}]},
            }
        )
    return steps


def _traj(steps: list, **root) -> dict:
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "terminus-2", "version": "1", "model_name": "m"},
        "steps": steps,
        **root,
    }


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _rows(spec: Path, out: Path) -> dict:
    rep = ingest_source(str(spec), out, hub=None)
    table = read_traces(out)
    assert table.schema.equals(trace_schema())
    return {r["trial_name"]: r for r in table.to_pylist()} | {"_report": rep}


def test_phase_timings_tokens_cost_and_subagents(tmp_path):
    job = tmp_path / "jobs" / "2026-01-01__10-00-00"
    trial = job / "fix__abc"
    _write(
        trial / "result.json",
        {
            "task_name": "fix",
            "trial_name": "fix__abc",
            "agent_info": {"name": "terminus-2", "version": "1", "model_info": {"name": "m", "provider": "p"}},
            "verifier_result": {"rewards": {"reward": 1.0}},
            "exception_info": None,
            "started_at": "2026-01-01T10:00:00Z",
            "finished_at": "2026-01-01T10:05:30.500000Z",
            "environment_setup": {"started_at": "2026-01-01T10:00:00Z", "finished_at": "2026-01-01T10:00:12.250000Z"},
            "agent_setup": {"started_at": "2026-01-01T10:00:12.250000", "finished_at": "2026-01-01T10:00:20"},
            "agent_execution": {"started_at": "2026-01-01T10:00:20+00:00"},  # no finished_at
            "verifier": {"started_at": "2026-01-01T10:05:00", "finished_at": "2026-01-01T10:05:30+00:00"},  # mixed
            "agent_result": {
                "n_input_tokens": 1200,
                "n_output_tokens": 340,
                "n_cache_tokens": 800,
                "metadata": {"n_episodes": 2},
            },  # no cost_usd: ATIF final_metrics fills it
        },
    )
    agent = trial / "agent"
    embedded = _traj(_steps(["sub answer"]), trajectory_id="sub-emb")
    _write(
        agent / "trajectory.json",
        _traj(
            _steps(
                ["a", "b"],
                refs=[
                    {"session_id": "s2", "trajectory_path": "trajectory.summary-1.json"},
                    {"trajectory_id": "sub-emb"},
                ],
            ),  # ref to the embedded one: not twice
            subagent_trajectories=[embedded],
            continued_trajectory_ref="trajectory.cont-1.json",
            final_metrics={
                "total_prompt_tokens": 300,
                "total_completion_tokens": 20,
                "total_cached_tokens": 0,
                "total_cost_usd": 0.001,
            },
        ),
    )
    _write(
        agent / "trajectory.cont-1.json",
        _traj(
            _steps(["c"]),
            final_metrics={"total_prompt_tokens": 999, "total_completion_tokens": 99, "total_cost_usd": 0.0125},
        ),
    )
    _write(agent / "trajectory.summary-1.json", _traj(_steps(["summary"]), session_id="s2"))

    # a second trial: no timings, no agent_result counts -> every token field from ATIF;
    # an unreferenced sibling subagent file and a subagent continuation
    other = job / "fix__def"
    _write(
        other / "result.json",
        {
            "task_name": "fix",
            "trial_name": "fix__def",
            "verifier_result": {"rewards": {"reward": 0}},
            "started_at": "not a time",
            "finished_at": "2026-01-01T11:00:00",
            "agent_result": {"n_input_tokens": None, "cost_usd": 0.5},
        },
    )
    _write(
        other / "agent" / "trajectory.json",
        _traj(
            _steps(["x"]),
            final_metrics={
                "total_prompt_tokens": 4000,
                "total_completion_tokens": 250,
                "total_cached_tokens": 3000,
                "total_cost_usd": 0.02,
            },
        ),
    )
    _write(other / "agent" / "trajectory.helper-1.json", _traj(_steps(["h"])))
    _write(other / "agent" / "trajectory.helper-1.cont-1.json", _traj(_steps(["h2"])))

    by = _rows(tmp_path / "jobs", tmp_path / "o.parquet")
    r = by["fix__abc"]
    assert r["env_setup_s"] == pytest.approx(12.25)
    assert r["agent_setup_s"] == pytest.approx(7.75)  # naive on both sides
    assert r["agent_exec_s"] is None and r["verifier_s"] is None
    assert r["trial_s"] == pytest.approx(330.5)
    assert (r["input_tokens"], r["output_tokens"], r["cached_tokens"]) == (1200, 340, 800)  # result.json wins
    assert r["cost_usd"] == pytest.approx(0.0125)  # last continuation's final_metrics
    assert r["n_subagents"] == 2  # embedded + referenced file; the continuation is not one
    assert r["reward"] == 1.0 and r["n_turns"] == 3 and r["agent"] == "terminus-2"

    o = by["fix__def"]
    assert all(o[c] is None for c in ("env_setup_s", "agent_setup_s", "agent_exec_s", "verifier_s", "trial_s"))
    assert (o["input_tokens"], o["output_tokens"], o["cached_tokens"]) == (4000, 250, 3000)
    assert o["cost_usd"] == pytest.approx(0.5)
    assert o["n_subagents"] == 1  # trajectory.helper-1.json; its cont-1 is a continuation
    assert by["_report"].notes["unparseable phase timestamp (kept, duration null)"] == 1
    assert by["_report"].rows_written == 2 and not by["_report"].skipped


def test_legacy_trial_without_trajectory_has_no_subagent_count(tmp_path):
    trial = tmp_path / "t__1"
    _write(
        trial / "result.json",
        {
            "task_name": "t",
            "trial_name": "t__1",
            "agent_result": {"n_input_tokens": 10, "n_output_tokens": 2, "n_cache_tokens": 0, "cost_usd": 0},
        },
    )
    (trial / "agent" / "episode-0").mkdir(parents=True)
    (trial / "agent" / "episode-0" / "response.txt").write_text("done")
    r = _rows(trial, tmp_path / "o.parquet")["t__1"]
    assert (r["input_tokens"], r["output_tokens"], r["cached_tokens"], r["cost_usd"]) == (10, 2, 0, 0.0)
    assert r["n_subagents"] is None and r["trial_s"] is None


def test_standalone_atif_file_tokens_and_subagents(tmp_path):
    refs = [
        {"session_id": "a", "trajectory_path": "trajectory.sub-a.json"},  # resolves to case.trajectory.sub-a.json
        {"session_id": "b", "trajectory_path": "s3://bucket/sub-b.json"},
    ]  # not here, still a subagent
    path = _write(
        tmp_path / "case.trajectory.json",
        _traj(
            _steps(["a"], refs=refs),
            subagent_trajectories=[_traj(_steps(["e"]), trajectory_id="e1")],
            final_metrics={"total_prompt_tokens": 50, "total_completion_tokens": 5, "total_cost_usd": 0.25},
        ),
    )
    _write(tmp_path / "case.trajectory.sub-a.json", _traj(_steps(["s"])))
    _write(tmp_path / "case.trajectory.variant.json", _traj(_steps(["v"])))  # renamed copies: not scanned
    r = _rows(path, tmp_path / "o.parquet")["case.trajectory.json"]
    assert (r["input_tokens"], r["output_tokens"], r["cached_tokens"], r["cost_usd"]) == (50, 5, None, 0.25)
    assert r["n_subagents"] == 3
    assert all(r[c] is None for c in ("env_setup_s", "agent_setup_s", "agent_exec_s", "verifier_s", "trial_s"))


def test_other_sources_leave_the_new_columns_null(tmp_path):
    row = {
        "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
        "task": "T",
        "trial_name": "T__0",
        "result": "1.0",
        "input_tokens": 5,
        "n_subagents": 2,
    }
    (tmp_path / "x.jsonl").write_text(json.dumps(row) + "\n")
    r = _rows(tmp_path / "x.jsonl", tmp_path / "o.parquet")["T__0"]
    assert all(r[c] is None for c in NEW)
    rg = {
        "name": "chain_sum",
        "category": "arithmetic",
        "config": {"seed": 1},
        "results": [
            {
                "question": "1+1?",
                "expected_answer": "2",
                "mean_score": 1.0,
                "completions": [{"model_answer": "2", "full_model_response": "2", "score": 1.0}],
            }
        ],
    }
    (tmp_path / "chain_sum.json").write_text(json.dumps(rg))
    ingest_source(str(tmp_path / "chain_sum.json"), tmp_path / "rg.parquet", hub=None)
    rows = read_traces(tmp_path / "rg.parquet").to_pylist()
    assert rows and all(r[c] is None for r in rows for c in NEW)


def test_new_columns_are_last_and_older_tables_read_back_null(tmp_path):
    # The run-fact columns follow `conversation` (later additions, such as the task identity, come after them).
    assert tuple(ADDED_COLUMNS[: len(NEW)]) == NEW
    assert trace_schema().names.index(NEW[0]) == trace_schema().names.index("conversation") + 1
    assert (
        trace_schema().field("n_subagents").type == pa.int64() and trace_schema().field("trial_s").type == pa.float64()
    )
    old_schema = pa.schema([f for f in trace_schema() if f.name not in NEW])
    old = pa.Table.from_pylist([{"trace_id": "x", "task_id": "t", "reward": 1.0}], schema=old_schema)
    pq.write_table(old, tmp_path / "old.parquet")
    full = read_traces(tmp_path / "old.parquet")
    assert full.schema.equals(trace_schema()) and full.column("n_subagents").to_pylist() == [None]
    light = read_traces(tmp_path / "old.parquet", columns=LIGHT_COLUMNS)
    assert light.column_names == list(LIGHT_COLUMNS) and light.column("reward").to_pylist() == [1.0]
    assert read_traces(tmp_path / "old.parquet", ["trace_id", "cost_usd"]).to_pylist() == [
        {"trace_id": "x", "cost_usd": None}
    ]


@pytest.mark.parametrize(
    "start,end,expected",
    [
        ("2026-01-01T00:00:00Z", "2026-01-01T00:01:00+01:00", None),  # end before start
        ("2026-01-01T00:00:00+02:00", "2026-01-01T00:00:00+00:00", 7200.0),
        ("2026-01-01T00:00:00", "2026-01-01T00:00:01.5", 1.5),
        ("2026-01-01T00:00:00", "2026-01-01T00:00:01Z", None),  # naive vs aware
        (None, "2026-01-01T00:00:00Z", None),
        ("2026-01-01T00:00:00Z", "", None),
        ("yesterday", "2026-01-01T00:00:00Z", None),
        (0, 90.0, 90.0),
        ({"x": 1}, "2026-01-01", None),
    ],
)
def test_duration_rules(start, end, expected):
    assert duration_s(start, end) == (pytest.approx(expected) if expected is not None else None)


@pytest.mark.skipif(not GOLDEN.is_dir(), reason=needs_shared(GOLDEN))
def test_golden_trajectories_fill_tokens_and_subagents(tmp_path):
    t2 = GOLDEN / "terminus_2"

    def one(name: str) -> dict:
        out = tmp_path / (name + ".parquet")
        rep = ingest_source(str(t2.parent / name), out, hub=None)
        assert rep.rows_written == 1, rep.skip_examples
        return read_traces(out).to_pylist()[0]

    main = one("terminus_2/hello-world-context-summarization.trajectory.json")
    assert (main["input_tokens"], main["output_tokens"], main["cached_tokens"]) == (7802, 1030, 0)
    assert main["cost_usd"] == pytest.approx(0.029805) and main["n_subagents"] == 3  # summary, questions, answers
    linear = one("terminus_2/hello-world-context-summarization-linear-history.trajectory.json")
    assert linear["input_tokens"] == 7802  # the last continuation holds the run totals (not 2252)
    assert linear["n_subagents"] == 3  # referenced; the files were not kept beside it
    assert (
        one("openhands/hello-world.trajectory.json")["n_subagents"] == 0
    )  # the no_function_calling variant is no subagent
    for p in sorted(GOLDEN.glob("*/*trajectory*.json")):
        if ".cont-" in p.name:
            continue
        r = one(f"{p.parent.name}/{p.name}")
        assert r["n_subagents"] is not None and r["input_tokens"] is not None
        assert all(r[c] is None for c in ("env_setup_s", "agent_setup_s", "agent_exec_s", "verifier_s", "trial_s"))
