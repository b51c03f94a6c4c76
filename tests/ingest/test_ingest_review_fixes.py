"""Regression tests for the ingest review findings (B1-B8 and the lower-priority items).
Each test fails on the code before its fix."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rl_assets.ingest import _json, ingest_source, read_traces
from rl_assets.ingest.features import featurize, featurize_reference
from rl_assets.ingest.plan import Candidate, plan
from rl_assets.ingest.report import SkipLog
from rl_assets.ingest.rows import episode_number, parse_date, parse_result, to_count, to_int
from rl_assets.ingest.spec import _looks_local
from rl_assets.ingest.tokens import count_tokens


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))


def _jsonl(path: Path, rows: list) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _row(task="t1", **kw) -> dict:
    return {
        "task": task,
        "result": "1.0",
        "date": "2026-01-01T00:00:00Z",
        "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
        **kw,
    }


# -- B1 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["inf", "Infinity", "-inf", "1e400", math.inf, -math.inf, 10**400])
def test_non_finite_result_is_no_reward_and_noted(value):
    skips = SkipLog()
    assert parse_result(value, skips) == (None, None)
    assert skips.notes == {"non-finite result (kept, reward null)": 1}


def test_non_finite_result_row_is_not_passed(tmp_path):
    spec = _jsonl(tmp_path / "x.jsonl", [_row(result="Infinity"), _row(task="b", result=math.inf)])
    rep = ingest_source(spec, tmp_path / "o.parquet", hub=None)
    rows = read_traces(tmp_path / "o.parquet").to_pylist()
    assert [(r["reward"], r["passed"], r["reward_positive"]) for r in rows] == [(None, False, False)] * 2
    assert rep.notes["non-finite result (kept, reward null)"] == 2


# -- B2 ---------------------------------------------------------------------------------------
TEXT_CALL = '<tool_call>\n{"name": "bash", "arguments": {}}\n</tool_call>'


@pytest.mark.parametrize("null_calls", [None, [], ""])
def test_null_tool_calls_key_keeps_text_tool_calls(null_calls):
    msgs = [
        {"role": "user", "content": "go", "tool_calls": null_calls},
        {"role": "assistant", "content": TEXT_CALL, "tool_calls": null_calls},
    ]
    for f in (featurize, featurize_reference):
        out = f(msgs, count_tokens)
        assert out["tool_calls_total"] == 1.0 and json.loads(out["tool_calls_by_name"]) == {"bash": 1}


def test_json_string_tool_calls_are_parsed():
    calls = json.dumps([{"type": "function", "function": {"name": "finish", "arguments": "{}"}}])
    msgs = [{"role": "assistant", "content": TEXT_CALL, "tool_calls": calls}]
    for f in (featurize, featurize_reference):
        out = f(msgs, count_tokens)
        assert json.loads(out["tool_calls_by_name"]) == {"finish": 1} and out["premature_stop"] == 0.0


@pytest.mark.parametrize("bad", [5, "not json", {"name": "x"}, "[1"])
def test_non_list_tool_calls_are_ignored(bad):
    msgs = [
        {"role": "assistant", "content": "plain", "tool_calls": bad},
        {"role": "assistant", "content": "x", "tool_calls": [{"function": {"name": "ls"}}]},
    ]
    for f in (featurize, featurize_reference):
        assert json.loads(f(msgs, count_tokens)["tool_calls_by_name"]) == {"ls": 1}


def test_parquet_struct_merge_null_tool_calls(tmp_path):
    """Parquet gives every message of a struct column the union of fields: tool_calls None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    conv = [
        {"role": "user", "content": "go", "tool_calls": None},
        {"role": "assistant", "content": TEXT_CALL, "tool_calls": None},
    ]
    other = [{"role": "assistant", "content": "x", "tool_calls": [{"function": {"name": "ls"}}]}]
    pq.write_table(
        pa.Table.from_pylist(
            [{"task": "a", "result": "1", "conversations": conv}, {"task": "b", "result": "1", "conversations": other}]
        ),
        tmp_path / "x.parquet",
    )
    ingest_source(str(tmp_path / "x.parquet"), tmp_path / "o.parquet", hub=None)
    rows = read_traces(tmp_path / "o.parquet").to_pylist()
    assert [r["tool_calls_total"] for r in rows] == [1.0, 1.0]


# -- B3 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["laion/Qwen2.5-7B-traces", "org/model-v1.5", "org/name"])
def test_hub_ids_with_dots_are_not_local(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert not _looks_local(spec)


@pytest.mark.parametrize("spec", ["./missing.jsonl", "data/x.parquet", "x.json", "~/nope", "../a/b", "/abs/org/name"])
def test_local_looking_specs(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _looks_local(spec)
    with pytest.raises(FileNotFoundError, match=spec.replace(".", r"\.")):
        ingest_source(spec, tmp_path / "o.parquet", hub=None)


def test_existing_folder_named_like_a_hub_id_is_local(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _jsonl(tmp_path / "org" / "model-v1.5" / "x.jsonl", [_row()])
    assert ingest_source("org/model-v1.5", tmp_path / "o.parquet", hub=None).rows_written == 1


# -- B4 / B8 plan -----------------------------------------------------------------------------
def _cand(task, trial, episode=None, date=None, attempt=None, k=[0]):  # noqa: B006 - k counts calls on purpose
    k[0] += 1
    return Candidate(None, k[0], f"row {k[0]}", task, trial, episode, date, attempt)


def test_keep_all_episodes_share_the_trial_attempt():
    d1, d2 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    cands = [
        _cand("t", "A", 0, d1),
        _cand("t", "A", 1, d1),
        _cand("t", "B", 0, d2),
        _cand("t", "B", 1, d2),
        _cand("t", "A", 2, d1),
    ]
    kept = plan(cands, SkipLog(), keep_all_episodes=True, max_rows=None)
    assert [(c.trial_name, c.episode, c.attempt) for c in kept] == [
        ("A", 0, 0),
        ("A", 1, 0),
        ("B", 0, 1),
        ("B", 1, 1),
        ("A", 2, 0),
    ]
    reduced = plan(
        [_cand("t", "A", 0, d1), _cand("t", "A", 1, d1), _cand("t", "B", 0, d2)],
        SkipLog(),
        keep_all_episodes=False,
        max_rows=None,
    )
    assert [(c.trial_name, c.attempt) for c in reduced] == [("A", 0), ("B", 1)]


def test_keep_all_episodes_end_to_end(tmp_path):
    rows = [_row(trial_name=tr, episode=f"episode-{e}") for tr in ("A", "B") for e in range(3)]
    spec = _jsonl(tmp_path / "x.jsonl", rows)
    ingest_source(spec, tmp_path / "o.parquet", hub=None, keep_all_episodes=True)
    got = {(r["trial_name"], r["episode"]): r["attempt"] for r in read_traces(tmp_path / "o.parquet").to_pylist()}
    assert got == {("A", 0): 0, ("A", 1): 0, ("A", 2): 0, ("B", 0): 1, ("B", 1): 1, ("B", 2): 1}


def test_undated_trials_number_after_dated_ones():
    dated = datetime(2026, 3, 1, tzinfo=UTC)
    cands = [_cand("t", "a-undated"), _cand("t", "z-dated", date=dated)]
    plan(cands, SkipLog(), keep_all_episodes=False, max_rows=None)
    assert [(c.trial_name, c.attempt) for c in cands] == [("a-undated", 1), ("z-dated", 0)]


# -- B5 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value,expected",
    [
        (1.0, 1),
        ("3.0", 3),
        ("episode-3", 3),
        ("episode-3.0", 3),
        (7, 7),
        ("17", 17),
        (1.5, None),
        ("x", None),
        (True, None),
        ("²", None),
        (math.inf, None),
        ("episode-99999999999999999999", None),
    ],
)
def test_episode_number(value, expected):
    assert episode_number(value) == expected


# -- B6 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [to_int, to_count])
def test_ints_outside_int64_are_null_and_noted(fn):
    skips = SkipLog()
    assert fn(1e20, skips) is None and fn("99999999999999999999", skips) is None
    assert fn(2**63 - 1) == 2**63 - 1
    assert skips.notes == {"integer outside int64 range (kept, value null)": 2}
    assert to_int(math.inf) is None


def test_reasoning_content_parts_and_list_role():
    msgs = [
        {"role": ["weird"], "content": "hi"},
        {"role": "assistant", "content": "a", "reasoning_content": [{"type": "text", "text": "deep thought"}]},
        {"role": "assistant", "content": "b", "reasoning_content": {"text": "more"}},
    ]
    fast, ref = featurize(msgs, count_tokens), featurize_reference(msgs, count_tokens)
    assert fast == ref
    assert ref["think_blocks"] == 2.0 and ref["think_tokens"] == 3.0 and ref["n_turns"] == 2


def test_unexpected_error_is_a_counted_skip_naming_file_and_row(tmp_path, monkeypatch):
    """Per-row isolation (issue 13): an error no rule anticipated skips that row only."""
    import rl_assets.ingest as ingest

    real = ingest.featurize

    def boom(messages, counter):
        if messages and messages[-1].get("content") == "bad":
            raise KeyError("surprise")
        return real(messages, counter)

    monkeypatch.setattr(ingest, "featurize", boom)
    bad = _row(task="b")
    bad["conversations"] = [{"role": "assistant", "content": "bad"}]
    spec = _jsonl(tmp_path / "x.jsonl", [_row(), bad])
    rep = ingest_source(spec, tmp_path / "o.parquet", hub=None)
    assert rep.rows_written == 1 and rep.skipped == {"unusable row (KeyError)": 1}
    assert rep.skip_examples == [f"{spec} row 2 (KeyError: 'surprise'): unusable row (KeyError)"]


def test_unexpected_error_in_build_row_names_row(tmp_path, monkeypatch):
    import rl_assets.ingest.formats.exported as exported

    real = exported.parse_result
    calls = iter([True, True])  # the first two rows break; the third is read (a source with none read fails)

    def boom(*a, **k):
        if next(calls, False):
            raise RuntimeError("odd shape")
        return real(*a, **k)

    monkeypatch.setattr(exported, "parse_result", boom)
    spec = _jsonl(tmp_path / "x.jsonl", [_row(), _row(task="b"), _row(task="c")])
    rep = ingest_source(spec, tmp_path / "o.parquet", hub=None)
    assert rep.rows_written == 1 and rep.skipped == {"unusable row (RuntimeError)": 2}
    assert rep.skip_examples[0] == f"{spec} row 1 (RuntimeError: odd shape): unusable row (RuntimeError)"


# -- B7 ---------------------------------------------------------------------------------------
def _rg(path: Path, score=1.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "name": "chain_sum",
                "config": {"seed": 1, "dir": path.parent.name},
                "results": [
                    {
                        "question": "1+1",
                        "expected_answer": "2",
                        "completions": [{"model_answer": "2", "full_model_response": "2", "score": score}],
                    }
                ],
            }
        )
    )


def test_rg_copies_in_several_folders_get_distinct_ids(tmp_path):
    _rg(tmp_path / "evals" / "easy" / "chain_sum.json")
    _rg(tmp_path / "evals" / "hard" / "chain_sum.json", 0.0)
    ingest_source(str(tmp_path / "evals"), tmp_path / "o.parquet", hub=None)
    rows = read_traces(tmp_path / "o.parquet").to_pylist()
    assert len(rows) == 2 and len({r["trace_id"] for r in rows}) == 2 and len({r["trial_name"] for r in rows}) == 2
    assert sorted(r["trial_name"] for r in rows) == [
        "easy/chain_sum.json:chain_sum/0#0",
        "hard/chain_sum.json:chain_sum/0#0",
    ]
    assert {r["benchmark"] for r in rows} == {"reasoning_gym"}


def test_rg_benchmark_argument_wins(tmp_path):
    _rg(tmp_path / "chain_sum.json")
    ingest_source(str(tmp_path / "chain_sum.json"), tmp_path / "o.parquet", hub=None, benchmark="rg-easy")
    assert read_traces(tmp_path / "o.parquet").column("benchmark").to_pylist() == ["rg-easy"]


# -- B8 ---------------------------------------------------------------------------------------
def test_null_messages_fall_back_to_conversation(tmp_path):
    r = _row()
    del r["conversations"]
    r["messages"], r["conversation"] = None, [{"role": "assistant", "content": "x y"}]
    ingest_source(_jsonl(tmp_path / "x.jsonl", [r]), tmp_path / "o.parquet", hub=None)
    assert read_traces(tmp_path / "o.parquet").column("n_turns").to_pylist() == [1]


# -- lower priority -------------------------------------------------------------------------
def test_json_dump_nan_and_infinity_are_read():
    assert math.isnan(_json.loads(b'{"a": NaN}')["a"]) and _json.loads(b"[Infinity, -Infinity]") == [
        math.inf,
        -math.inf,
    ]
    with pytest.raises(ValueError):
        _json.loads(b'{"a": ')


def test_lowercase_z_date():
    assert parse_date("2026-01-01T05:00:00z") == datetime(2026, 1, 1, 5, tzinfo=UTC)


def test_json_array_shards_are_not_held(tmp_path):
    from rl_assets.ingest.spec import resolve

    (tmp_path / "d").mkdir()
    for name in ("a", "b"):
        (tmp_path / "d" / f"{name}.json").write_text(json.dumps([_row(task=name)]))
    assert resolve(str(tmp_path / "d"), None).adapter.preloaded == {}
    single = resolve(str(tmp_path / "d" / "a.json"), None).adapter
    assert list(single.preloaded) == [tmp_path / "d" / "a.json"]
    ingest_source(str(tmp_path / "d"), tmp_path / "o.parquet", hub=None)
    assert read_traces(tmp_path / "o.parquet").num_rows == 2
