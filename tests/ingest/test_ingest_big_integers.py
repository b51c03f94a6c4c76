"""Integers beyond 64 bits: orjson alone parses them as the nearest float, silently. Every column
keeps them exactly (text columns as their decimal digits) or says what it did with them."""

from __future__ import annotations

import json

from rl_assets.ingest import _json, ingest_source, read_traces
from rl_assets.ingest.rows import INEXACT_REWARD, INT_RANGE
from support.eval_toolkits import lm_eval_row, lm_eval_run, qwen_file, qwen_row

BIG = 123456789012345678901234567890  # 97 bits
NEG = -9223372036854775809  # one below int64
U64 = 18446744073709551615  # the largest integer orjson itself keeps exact


def test_loads_keeps_integers_beyond_64_bits_exact():
    assert _json.loads(f'{{"a": {BIG}, "b": [{NEG}, 1.5, 1e19]}}'.encode()) == {"a": BIG, "b": [NEG, 1.5, 1e19]}
    assert _json.loads(str(BIG)) == BIG and type(_json.loads(str(BIG))) is int
    assert _json.loads(f"[{U64}]") == [U64]


def test_only_a_value_with_a_huge_float_is_parsed_twice(monkeypatch):
    """The fast path stays one orjson parse: the standard library sees only values that need it."""
    calls = []
    real = json.loads
    monkeypatch.setattr(_json.json, "loads", lambda data: calls.append(data) or real(data))
    ordinary = {
        "task_id": "t-1",
        "result": 0.5,
        "seed": 1234567890123,
        "messages": [{"role": "user", "content": "9" * 40}],
    }
    assert _json.loads(json.dumps(ordinary).encode()) == ordinary  # long digit runs inside text do not count
    assert calls == [] or _json.backend() == "json"
    assert _json.loads(f'{{"seed": {BIG}}}'.encode()) == {"seed": BIG}
    assert len(calls) == 1 or _json.backend() == "json"


def test_dumps_writes_integers_beyond_64_bits_as_their_digits():
    assert _json.dumps({"seed": BIG, "x": [NEG]}) == f'{{"seed":{BIG},"x":[{NEG}]}}'
    assert _json.fingerprint({"seed": BIG}) != _json.fingerprint({"seed": BIG + 1})


def test_an_integer_too_long_for_python_is_a_named_skip(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"task": "t0", "result": 1.0}) + "\n" + '{"task": "t1", "result": ' + "7" * 5000 + "}\n")
    report = ingest_source(str(path), tmp_path / "o.parquet", hub=None)
    assert report.rows_written == 1
    assert report.skipped == {_json.LONG_INT: 1}
    assert f"{path} row 2" in str(report.skip_examples)


def test_exported_rows_keep_big_integers_per_column(tmp_path):
    """Ids and text columns hold the exact digits; int64 columns null the value with a note; the
    float64 reward keeps the nearest float with a note."""
    path = tmp_path / "traces.jsonl"
    lines = [
        # a numeric task id beyond 64 bits, a seed in the task config, a tool call's argument
        f'{{"task_id": {BIG}, "trial_name": "trial-a", "result": 1.0, "task_config": {{"seed": {BIG}}},'
        f' "episode": {NEG}, "conversations": [{{"role": "user", "content": "factor it"}},'
        f' {{"role": "assistant", "content": "", "tool_calls": [{{"function": {{"name": "factor",'
        f' "arguments": {{"n": {BIG}}}}}}}]}}]}}',
        # two ids that differ only past float precision must stay two tasks
        f'{{"task_id": {BIG + 1}, "trial_name": "trial-b", "result": {2**53 + 1}, "conversations": []}}',
    ]
    path.write_text("\n".join(lines) + "\n")
    report = ingest_source(str(path), tmp_path / "o.parquet", hub=None)
    rows = {r["trial_name"]: r for r in read_traces(tmp_path / "o.parquet").to_pylist()}
    assert report.rows_written == 2 and report.skipped == {}
    a, b = rows["trial-a"], rows["trial-b"]
    assert a["task_id"] == str(BIG) and b["task_id"] == str(BIG + 1)
    assert json.loads(a["task_config"]) == {"seed": BIG}
    assert str(BIG) in a["conversation"] and json.loads(a["conversation"])[1]["tool_calls"][0]["function"][
        "arguments"
    ] == {"n": BIG}
    assert a["episode"] is None  # beyond int64: null, noted
    assert b["reward"] == float(2**53)  # the nearest float, noted
    assert report.notes == {INT_RANGE: 1, INEXACT_REWARD: 1}


def test_eval_toolkit_answers_keep_big_integers(tmp_path):
    """A math answer written as a JSON number (Qwen2.5-Math's gt, an lm-eval doc) stays its digits."""
    qwen_file(tmp_path / "qwen", "aime25", [qwen_row(0, "What is 2**97 - 1?", BIG, [str(BIG)], [True])])
    ingest_source(str(tmp_path / "qwen"), tmp_path / "q.parquet", hub=None)
    (row,) = read_traces(tmp_path / "q.parquet").to_pylist()
    assert row["expected_answer"] == str(BIG)

    sample = lm_eval_row(0, "What is 2**97 - 1?", str(BIG), str(BIG), 1.0)
    sample["doc"]["answer"] = BIG  # the dataset stores the answer as a number
    lm_eval_run(tmp_path / "lm", "arith", [sample])
    ingest_source(str(tmp_path / "lm"), tmp_path / "l.parquet", hub=None)
    (row,) = read_traces(tmp_path / "l.parquet").to_pylist()
    assert json.loads(row["question"])["answer"] == BIG
