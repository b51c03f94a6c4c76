"""Ingest of the shared real-format fixtures (Harbor golden files, ATIF RFC native logs).
Skips when the shared folder beside the repo is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rl_assets.ingest import IngestError, ingest_source, read_traces
from support.shared_data import SHARED, needs_shared

FIX = SHARED / "fixtures"
pytestmark = pytest.mark.skipif(not FIX.is_dir(), reason=needs_shared(FIX))
GOLDEN = FIX / "harbor_golden"


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))


def _one(spec: Path, tmp_path) -> dict:
    rep = ingest_source(str(spec), tmp_path / "o.parquet", hub=None)
    assert rep.rows_written == 1, rep.skip_examples
    return read_traces(tmp_path / "o.parquet").to_pylist()[0]


def _unparseable(value) -> bool:
    from datetime import datetime

    try:
        datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return value not in (None, "")
    return False


def _steps(path: Path) -> list:
    return json.loads(path.read_text())["steps"]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (GOLDEN / "terminus_2").glob("*.traces.json")) if FIX.is_dir() else []
)
def test_terminus_exported_rows_keep_last_episode(name, tmp_path):
    path = GOLDEN / "terminus_2" / name
    data = json.loads(path.read_text())
    rep = ingest_source(str(path), tmp_path / "o.parquet", hub=None)
    last = max(data, key=lambda r: int(r["episode"].split("-")[1]))
    row = read_traces(tmp_path / "o.parquet").to_pylist()[0]
    assert rep.rows_read == len(data) and rep.rows_written == 1
    assert row["task_id"] == last["task"] == "harbor/hello-world"
    assert row["n_messages"] == len(last["conversations"])
    assert row["n_turns"] == sum(m["role"] == "assistant" for m in last["conversations"])
    assert row["reward"] is None and row["error_type"] is None  # golden runs had no verifier
    # the note counts kept rows only (one trial -> the last episode), not every scanned episode
    assert row["date"] is None
    assert rep.notes.get("unparseable date (kept, date null)", 0) == int(_unparseable(last.get("date")))


def test_jsonl_copies_match_json_arrays(tmp_path):
    a = ingest_source(
        str(GOLDEN / "derived_jsonl" / "hello-world-invalid-json.traces.jsonl"), tmp_path / "a.parquet", hub=None
    )
    b = ingest_source(
        str(GOLDEN / "terminus_2" / "hello-world-invalid-json.traces.json"), tmp_path / "b.parquet", hub=None
    )
    assert a.feature_summary == b.feature_summary and a.rows_written == b.rows_written == 1


def test_openhands_exported_vs_atif(tmp_path):
    traces = _one(GOLDEN / "openhands" / "hello-world.traces.json", tmp_path)
    assert json.loads(traces["tool_calls_by_name"]) == {"finish": 1, "str_replace_editor": 1}
    steps = _steps(GOLDEN / "openhands" / "hello-world.trajectory.json")
    atif = _one(GOLDEN / "openhands" / "hello-world.trajectory.json", tmp_path / "x")
    agent = [s for s in steps if s["source"] == "agent"]
    assert atif["n_turns"] == len(agent) and atif["token_source"] == "recorded"
    assert atif["peak_prompt_tokens"] == max(s["metrics"]["prompt_tokens"] for s in agent)
    assert atif["assistant_tokens"] == sum(s["metrics"]["completion_tokens"] for s in agent)
    assert atif["tool_calls_total"] == sum(len(s.get("tool_calls") or []) for s in agent)
    assert atif["premature_stop"] == 0.0  # ends with the finish tool


def test_terminus_timeout_is_premature_and_invalid_json_has_reasoning(tmp_path):
    timeout = _one(GOLDEN / "terminus_2" / "hello-world-timeout.trajectory.json", tmp_path)
    assert timeout["premature_stop"] == 1.0 and "mark_task_complete" not in timeout["tool_calls_by_name"]
    path = GOLDEN / "terminus_2" / "hello-world-invalid-json.trajectory.json"
    bad = _one(path, tmp_path / "b")
    steps = _steps(path)
    assert bad["think_blocks"] == sum(bool(s.get("reasoning_content")) for s in steps)
    assert bad["parse_error_markers"] >= 1 and bad["premature_stop"] == 0.0


def test_continuation_and_copied_context(tmp_path):
    main = GOLDEN / "terminus_2" / "hello-world-context-summarization-linear-history.trajectory.json"
    cont = main.with_name(main.name.replace("trajectory.json", "trajectory.cont-1.json"))
    row = _one(main, tmp_path)
    agent = [s for s in _steps(main) + _steps(cont) if s["source"] == "agent" and not s.get("is_copied_context")]
    assert row["n_turns"] == len(agent)
    assert row["peak_prompt_tokens"] == max(s["metrics"]["prompt_tokens"] for s in agent)
    copied = [s for s in _steps(cont) if s.get("is_copied_context")]
    assert copied and len(json.loads(row["conversation"])) > row["n_messages"]  # copies kept, not counted


def test_subagent_trajectory_files_ingest_alone(tmp_path):
    for p in sorted((GOLDEN / "terminus_2").glob("*.trajectory.summarization-*.json")):
        row = _one(p, tmp_path / p.stem)
        assert row["n_turns"] == sum(s["source"] == "agent" and not s.get("is_copied_context") for s in _steps(p))


@pytest.mark.parametrize(
    "name,what",
    [
        ("gemini-cli-trajectory.json", "gemini-cli"),
        ("mini-swe-agent-trajectory.json", "mini-swe-agent"),
        ("openhands_trajectory.json", "OpenHands event list"),
    ],
)
def test_native_logs_are_refused(name, what, tmp_path):
    with pytest.raises(IngestError, match="not an ATIF trajectory") as info:
        ingest_source(str(FIX / "atif_rfc" / name), tmp_path / "o.parquet", hub=None)
    assert name in str(info.value) and what in str(info.value)
    assert not (tmp_path / "o.parquet").exists()
