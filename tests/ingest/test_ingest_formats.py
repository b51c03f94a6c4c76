"""Every source format from small generated fixtures (written into tmp_path)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from rl_assets.ingest import IngestError, ingest_source, read_traces
from rl_assets.ingest.tokens import count_tokens
from rl_assets.schema import trace_schema


def conv(n_agent: int, extra: str = "") -> list:
    out = [{"role": "user", "content": "solve"}]
    for k in range(n_agent):
        out += [
            {"role": "assistant", "content": f"step {k} {extra}"},
            {"role": "user", "content": "New Terminal Output: ok"},
        ]
    return out[:-1]


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))


def test_exported_rows_episodes_attempts_and_outcomes(tmp_path):
    rows = []
    for trial, task, date, result, eps in [
        ("a__1", "A", "2026-01-02T00:00:00Z", "1.0", 3),
        ("a__0", "A", "2026-01-01T00:00:00Z", "0.0", 2),
        ("b__0", "B", "2026-01-01T00:00:00+02:00", "AgentTimeoutError", 1),
        ("c__0", "C", None, "DaytonaError", 1),
    ]:
        for e in range(eps):  # cumulative episode rows, shuffled trial order
            rows.append(
                {
                    "conversations": conv(e + 1),
                    "task": task,
                    "trial_name": trial,
                    "date": date,
                    "episode": f"episode-{e}",
                    "result": result,
                    "agent": "terminus-2",
                    "model": "m",
                }
            )
    report = ingest_source(
        str(write_jsonl(tmp_path / "x.jsonl", rows)), tmp_path / "o.parquet", hub=None, benchmark="tb2", side="rl"
    )
    assert report.rows_read == 7 and report.rows_written == 4
    assert report.merged["earlier episode of the same trial (kept the last)"] == 3
    t = read_traces(tmp_path / "o.parquet")
    assert t.schema.equals(trace_schema())
    by = {r["trial_name"]: r for r in t.to_pylist()}
    assert by["a__1"]["episode"] == 2 and by["a__1"]["n_turns"] == 3 and by["a__0"]["n_turns"] == 2
    assert (by["a__0"]["attempt"], by["a__1"]["attempt"]) == (0, 1)  # ordered by date
    assert by["a__1"]["passed"] and by["a__1"]["reward_positive"] and not by["a__0"]["passed"]
    assert by["b__0"]["reward"] is None and by["b__0"]["error_type"] == "AgentTimeoutError"
    assert by["b__0"]["is_infra_error"] is False and by["c__0"]["is_infra_error"] is True
    assert by["b__0"]["date"].isoformat() == "2025-12-31T22:00:00+00:00"
    assert {r["benchmark"] for r in by.values()} == {"tb2"} and report.side == "rl"
    assert len({r["trace_id"] for r in by.values()}) == 4
    all_eps = ingest_source(str(tmp_path / "x.jsonl"), tmp_path / "all.parquet", hub=None, keep_all_episodes=True)
    assert all_eps.rows_written == 7
    assert ingest_source(str(tmp_path / "x.jsonl"), tmp_path / "m.parquet", hub=None, max_rows=2).rows_written == 2


def test_demo_columns_pass_through_and_json_array(tmp_path):
    row = {
        "messages": conv(2),
        "task_id": "chain_sum/3",
        "task_family": "chain_sum",
        "task_index": 3,
        "task_config": {"seed": 5, "size": 10},
        "expected_answer": "7",
        "question": "3+4?",
        "answer": "7",
        "attempt": 4,
        "benchmark": "rg",
        "failure_mode": "format",
        "reward": 0.5,
    }
    (tmp_path / "x.json").write_text(json.dumps([row]))
    ingest_source(str(tmp_path / "x.json"), tmp_path / "o.parquet", hub=None)
    r = read_traces(tmp_path / "o.parquet").to_pylist()[0]
    assert (r["task_id"], r["task_family"], r["task_index"], r["attempt"]) == ("chain_sum/3", "chain_sum", 3, 4)
    assert json.loads(r["task_config"]) == {"seed": 5, "size": 10}
    assert (r["expected_answer"], r["question"], r["answer"], r["benchmark"], r["failure_mode"]) == (
        "7",
        "3+4?",
        "7",
        "rg",
        "format",
    )
    assert r["reward"] == 0.5 and r["reward_positive"] and not r["passed"]


@dataclass
class FakeInfo:
    revision: str


class FakeHub:
    def __init__(self, files):
        self.files, self.calls = files, []

    def dataset_info(self, repo_id, revision=None):
        self.calls.append(("info", repo_id, revision))
        return FakeInfo(revision or "abc123")

    def dataset_files(self, repo_id, revision=None):
        self.calls.append(("files", repo_id, revision))
        return self.files


def test_hub_dataset_spec_reads_shards_with_different_schemas(tmp_path):
    import pyarrow as pa

    a = tmp_path / "train-0.parquet"
    b = tmp_path / "train-1.parquet"
    pq.write_table(pa.Table.from_pylist([{"conversations": conv(1), "task": "A", "result": "1.0"}]), a)
    pq.write_table(
        pa.Table.from_pylist(
            [
                {
                    "conversations": conv(3),
                    "task": "B",
                    "result": 0.0,
                    "trace_source": "main",
                    "completion_token_ids": [[1, 2]],
                }
            ]
        ),
        b,
    )
    hub = FakeHub([b, a])
    rep = ingest_source("hf:org/traces@v1", tmp_path / "o.parquet", hub=hub)
    assert (rep.rows_written, rep.source_kind, rep.source_ref, rep.source_revision) == (
        2,
        "exported_rows",
        "org/traces",
        "v1",
    )
    assert hub.calls == [("info", "org/traces", "v1"), ("files", "org/traces", "v1")]
    t = read_traces(tmp_path / "o.parquet", columns=["task_id", "n_turns", "reward"]).to_pylist()
    assert t == [{"task_id": "A", "n_turns": 1, "reward": 1.0}, {"task_id": "B", "n_turns": 3, "reward": 0.0}]
    assert ingest_source("org/traces", tmp_path / "p.parquet", hub=FakeHub([a])).source_revision == "abc123"
    with pytest.raises(IngestError, match="no parquet/jsonl/json data files"):
        ingest_source("org/empty", tmp_path / "q.parquet", hub=FakeHub([]))


def _trial(job: Path, name: str, task: str, result: dict, steps: list | None, **files) -> Path:
    d = job / name
    (d / "agent").mkdir(parents=True)
    (d / "result.json").write_text(
        json.dumps({"task_name": task, "trial_name": name, "started_at": "2026-01-01T10:00:00", **result})
    )
    if steps is not None:
        (d / "agent" / "trajectory.json").write_text(
            json.dumps(
                {
                    "schema_version": "1.4",
                    "session_id": "s",
                    "agent": {"name": "t2", "version": "1", "model_name": "mm"},
                    "steps": steps,
                }
            )
        )
    for rel, text in files.items():
        p = d / rel.replace("__", "/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return d


def test_harbor_job_folder(tmp_path):
    job = tmp_path / "2026-01-01__10-00-00"
    steps = [
        {"step_id": 1, "source": "user", "message": "task"},
        {
            "step_id": 2,
            "source": "agent",
            "message": [{"type": "text", "text": "look"}, {"type": "image", "source": {"path": "a.png"}}],
            "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {}}],
            "observation": {"results": [{"source_call_id": "c1", "content": "[HINT FROM TEACHER]: hi"}]},
            "metrics": {"prompt_tokens": 900, "completion_tokens": 40},
        },
        {
            "step_id": 3,
            "source": "agent",
            "message": "done",
            "tool_calls": [{"tool_call_id": "c2", "function_name": "mark_task_complete", "arguments": {}}],
            "metrics": {"prompt_tokens": 1200, "completion_tokens": 10},
        },
    ]
    _trial(
        job,
        "fix__aaa",
        "fix",
        {
            "verifier_result": {"rewards": {"reward": 1}},
            "agent_info": {"name": "terminus-2", "model_info": {"name": "org/m"}},
        },
        steps,
    )
    _trial(
        job,
        "fix__bbb",
        "fix",
        {"exception_info": {"exception_type": "AgentTimeoutError"}},
        None,
        **{
            "agent__episode-0__prompt.txt": "do it",
            "agent__episode-0__response.txt": "ok",
            "agent__episode-1__prompt.txt": "more",
            "agent__episode-1__response.txt": "sure",
        },
    )
    _trial(job, "other__ccc", "other", {}, None, **{"exception.txt": "Traceback...\nDaytonaError: boom\n"})
    (job / "result.json").write_text(json.dumps({"id": "j", "stats": {"evals": {"t2__m__terminal-bench": {}}}}))
    rep = ingest_source(str(job), tmp_path / "o.parquet", hub=None)
    assert (rep.source_kind, rep.rows_written) == ("harbor", 3)
    by = {r["trial_name"]: r for r in read_traces(tmp_path / "o.parquet").to_pylist()}
    a = by["fix__aaa"]
    assert (a["reward"], a["passed"], a["agent"], a["model"], a["benchmark"]) == (
        1.0,
        True,
        "terminus-2",
        "org/m",
        "terminal-bench",
    )
    assert (a["peak_prompt_tokens"], a["assistant_tokens"], a["token_source"]) == (1200, 50.0, "recorded")
    assert (a["hint_count"], a["hint_first_turn"], a["premature_stop"], a["n_turns"]) == (1.0, 1, 0.0, 2)
    assert "[image]" in json.loads(a["conversation"])[1]["content"]
    b = by["fix__bbb"]
    assert (b["error_type"], b["n_turns"], b["token_source"]) == ("AgentTimeoutError", 2, "tokenizer:regex-v1")
    assert b["assistant_tokens"] == count_tokens("ok") + count_tokens("sure")
    assert (by["other__ccc"]["error_type"], by["other__ccc"]["is_infra_error"]) == ("DaytonaError", True)
    assert (a["attempt"], b["attempt"]) in {(0, 1), (1, 0)} and by["other__ccc"]["attempt"] == 0
    assert rep.token_source.startswith("mixed:")
    single = ingest_source(str(job / "fix__aaa"), tmp_path / "s.parquet", hub=None)
    assert single.rows_written == 1
    via_traj = ingest_source(str(job / "fix__aaa" / "agent" / "trajectory.json"), tmp_path / "t.parquet", hub=None)
    assert via_traj.source_kind == "harbor" and read_traces(tmp_path / "t.parquet").column("task_id").to_pylist() == [
        "fix"
    ]


def _rg_dataset(name: str, scores: list[list[float]]) -> dict:
    return {
        "name": name,
        "category": "arithmetic",
        "config": {"seed": 42, "size": len(scores), "min_terms": 2},
        "results": [
            {
                "question": f"q{i}",
                "expected_answer": f"a{i}",
                "mean_score": sum(s) / len(s),
                "completions": [
                    {"model_answer": f"m{i}{j}", "full_model_response": f"<answer>m{i}{j}</answer>", "score": v}
                    for j, v in enumerate(s)
                ],
            }
            for i, s in enumerate(scores)
        ],
    }


def test_reasoning_gym_both_layouts(tmp_path):
    scores = [[1.0, 0.0, 1.0], [0.2, 0.2, 0.0]]
    d = tmp_path / "easy" / "run1" / "arithmetic"
    d.mkdir(parents=True)
    (d / "chain_sum.json").write_text(json.dumps(_rg_dataset("chain_sum", scores)))
    (d.parent / "summary.json").write_text(
        json.dumps({"dataset_best_scores": {}, "model": "org/m", "timestamp": "2026-02-01T00:00:00"})
    )
    rep = ingest_source(str(d), tmp_path / "a.parquet", hub=None)
    rows = read_traces(tmp_path / "a.parquet").to_pylist()
    assert rep.source_kind == "reasoning_gym" and len(rows) == 6
    assert [r["reward"] for r in rows] == [v for s in scores for v in s]
    assert [(r["task_id"], r["attempt"]) for r in rows[:4]] == [
        ("chain_sum/0", 0),
        ("chain_sum/0", 1),
        ("chain_sum/0", 2),
        ("chain_sum/1", 0),
    ]
    r = rows[4]
    assert (r["task_family"], r["task_index"], r["answer"], r["expected_answer"], r["model"]) == (
        "chain_sum",
        1,
        "m11",
        "a1",
        "org/m",
    )
    assert json.loads(r["task_config"])["seed"] == 42
    assert [m["role"] for m in json.loads(r["conversation"])] == ["user", "assistant"]
    results = {
        "metadata": {"model": "org/x", "eval_repeats": 1, "timestamp": "2026-03-01T00:00:00"},
        "categories": [
            {
                "name": "arithmetic",
                "datasets": [
                    _rg_dataset("chain_sum", [[1.0]]),
                    {
                        "name": "leg_counting",
                        "config": {"seed": 1},
                        "results": [
                            {
                                "question": "q",
                                "expected_answer": "4",
                                "best_model_answer": "4",
                                "best_score": 1.0,
                                "mean_score": 1.0,
                            }
                        ],
                    },
                ],
            }
        ],
    }
    (tmp_path / "results.json").write_text(json.dumps(results))
    rep2 = ingest_source(str(tmp_path / "results.json"), tmp_path / "b.parquet", hub=None)
    rows2 = read_traces(tmp_path / "b.parquet").to_pylist()
    assert rep2.rows_written == 2 and [r["task_id"] for r in rows2] == ["chain_sum/0", "leg_counting/0"]
    assert rows2[1]["answer"] == "4" and rows2[1]["reward"] == 1.0 and rows2[1]["model"] == "org/x"


def test_report_metadata_and_reader(tmp_path):
    rows = [{"conversations": conv(n), "task": f"T{n}", "result": "1.0"} for n in (1, 3)]
    rep = ingest_source(
        str(write_jsonl(tmp_path / "x.jsonl", rows + [{"result": "0"}])), tmp_path / "o.parquet", hub=None
    )
    meta = rep.to_metadata()
    assert meta["rows"] == 2 and meta["rows_skipped"] == 1 and "| missing task id | 1 | skipped |" in meta["skipped"]
    assert meta["mean_assistant_msgs"] == 2.0 and rep.feature_summary["assistant_msgs"] == 2.0
    assert meta["token_source"] == "tokenizer:regex-v1"
    with pytest.raises(KeyError, match="nope"):
        read_traces(tmp_path / "o.parquet", columns=["nope"])
    with pytest.raises(FileNotFoundError):
        read_traces(tmp_path / "missing.parquet")
