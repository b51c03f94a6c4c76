"""Bad-input cases, issue 13 items 4 and 5: one bad row never sinks its file (lone surrogates,
deep nesting), and records written in unusual ways are found (CR-only line endings, several
values on one line, a byte order mark, NaN task ids, a malformed reasoning-gym family file).
Registered into bad_inputs.CASES on import."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from rl_assets.ingest import IngestError
from rl_assets.ingest._json import SURROGATE, TOO_DEEP
from rl_assets.ingest.jsonl import SPLIT_CR, SPLIT_MANY
from support.bad_inputs import _c, jsonl, row

NO_DATASET = "dataset without name or results list"


def _lines(d, *lines: bytes, name="x.jsonl") -> str:
    (d / name).write_bytes(b"".join(lines))
    return str(d / name)


def _ok_line(task="t1") -> bytes:
    return json.dumps(row(task=task)).encode() + b"\n"


def _deep(n: int) -> bytes:
    return b"[" * n + b'"x"' + b"]" * n


def _with_extra(value: bytes, task="b") -> bytes:
    return json.dumps(row(task=task)).encode().replace(b'"result"', b'"extra": ' + value + b', "result"') + b"\n"


# -- per-row isolation ---------------------------------------------------------------------------
@_c("jsonl_lone_surrogate_in_content", ("ok", 1, {SURROGATE: 1}), where="x.jsonl row 2")
def _(d):
    return _lines(d, _ok_line(), json.dumps(row(task="b")).encode().replace(b'"done"', b'"\\ud83d"') + b"\n")


@_c("jsonl_lone_surrogate_in_task_id", ("ok", 1, {SURROGATE: 1}), where="x.jsonl row 1")
def _(d):
    return _lines(d, json.dumps(row(task="PLACE")).encode().replace(b'"PLACE"', b'"\\udc00"') + b"\n", _ok_line())


@_c("jsonl_nested_300_kept", ("ok", 2, {}))  # deeper than orjson writes (255), the stdlib takes it
def _(d):
    return _lines(d, _ok_line(), _with_extra(_deep(300)))


@_c("jsonl_nested_1500", ("ok", 1, {TOO_DEEP: 1}), where="x.jsonl row 2")
def _(d):
    return _lines(d, _ok_line(), _with_extra(_deep(1500)))


@_c("jsonl_nested_2000_recursion", ("ok", 2, {TOO_DEEP: 1}), where="x.jsonl row 2")
def _(d):
    return _lines(d, _ok_line(), _with_extra(_deep(2000)), _ok_line("c"))


@_c("jsonl_nested_100000", ("ok", 1, {TOO_DEEP: 1}))
def _(d):
    return _lines(d, _with_extra(_deep(100_000)), _ok_line())


@_c("jsonl_nested_message_content_1000", ("ok", 1, {TOO_DEEP: 1}), where="x.jsonl row 2")
def _(d):
    return _lines(d, _ok_line(), json.dumps(row(task="b")).encode().replace(b'"done"', _deep(1000)) + b"\n")


@_c("json_array_nested_2000_is_unreadable", ("error", IngestError, "x.json: not valid JSON: value nested too deeply"))
def _(d):
    return _lines(d, b"[" + _ok_line().strip() + b", " + _with_extra(_deep(2000)).strip() + b"]", name="x.json")


@_c("jsonl_invalid_json_line_mid_file", ("ok", 2, {"invalid JSON": 1}), where="x.jsonl row 2")
def _(d):
    return _lines(d, _ok_line(), b'{"task": oops}\n', _ok_line("c"))


# -- records written in unusual ways -------------------------------------------------------------
@_c("jsonl_cr_only_line_endings", ("ok", 5, {}, {SPLIT_CR: 1}), task_ids=[f"t{i}" for i in range(5)])
def _(d):
    return _lines(d, b"\r".join(json.dumps(row(task=f"t{i}")).encode() for i in range(5)) + b"\r")


@_c("jsonl_crlf_line_endings", ("ok", 3, {}))
def _(d):
    return _lines(d, *(json.dumps(row(task=f"t{i}")).encode() + b"\r\n" for i in range(3)))


@_c("jsonl_several_objects_on_last_line", ("ok", 5, {}, {SPLIT_MANY: 1}))
def _(d):
    return _lines(d, b"".join(json.dumps(row(task=f"t{i}")).encode() for i in range(5)))


@_c("jsonl_several_objects_mid_file", ("ok", 6, {}, {SPLIT_MANY: 1}))
def _(d):
    return _lines(d, b" ".join(json.dumps(row(task=f"t{i}")).encode() for i in range(5)) + b"\n", _ok_line("z"))


@_c("jsonl_several_objects_then_truncated", ("ok", 2, {"truncated last line": 1}, {SPLIT_MANY: 1}))
def _(d):
    return _lines(d, json.dumps(row()).encode() * 2 + b'{"task": "t3", "conv')


@_c("jsonl_utf8_bom", ("ok", 2, {}))
def _(d):
    return _lines(d, b"\xef\xbb\xbf" + _ok_line(), _ok_line("b"))


@_c("json_array_utf8_bom", ("ok", 1, {}))
def _(d):
    return _lines(d, b"\xef\xbb\xbf" + json.dumps([row()]).encode(), name="x.json")


@_c("parquet_float_task_column_with_nan", ("ok", 2, {"missing task id": 1}), task_ids=["1", "3"])
def _(d):
    pq.write_table(pa.table({"task": [1.0, float("nan"), 3.0], "result": ["1.0", "0.0", "1.0"]}), d / "x.parquet")
    return str(d / "x.parquet")


@_c("jsonl_task_nan_written_by_json_dump", ("ok", 1, {"missing task id": 1}))
def _(d):
    return jsonl(d / "x.jsonl", [row(), row(task=float("nan"))])


def _family(name="chain_sum", results=None) -> dict:
    results = (
        [
            {
                "question": "q",
                "expected_answer": "a",
                "completions": [{"model_answer": "a", "full_model_response": "a", "score": 1.0}],
            }
        ]
        if results is None
        else results
    )
    return {"name": name, "config": {"seed": 1}, "results": results}


@_c("rg_folder_one_family_results_not_a_list", ("ok", 1, {NO_DATASET: 1}))
def _(d):
    (d / "rg").mkdir()
    (d / "rg" / "chain_sum.json").write_text(json.dumps(_family()))
    (d / "rg" / "basic_arith.json").write_text(json.dumps(_family("basic_arith", {"0": {"question": "q"}})))
    return str(d / "rg")


@_c("rg_folder_one_family_without_name", ("ok", 1, {NO_DATASET: 1}))
def _(d):
    (d / "rg").mkdir()
    (d / "rg" / "chain_sum.json").write_text(json.dumps(_family()))
    bad = _family()
    del bad["name"]
    (d / "rg" / "nameless.json").write_text(json.dumps(bad))
    return str(d / "rg")


@_c("rg_results_json_odd_categories", ("ok", 1, {NO_DATASET: 2}))
def _(d):
    data = {"metadata": {"model": "m"}, "categories": ["junk", {"name": "arith", "datasets": [_family(), 7]}]}
    (d / "results.json").write_text(json.dumps(data))
    return str(d / "results.json")


@_c("rg_folder_one_family_truncated", ("error", IngestError, "basic_arith.json: not valid JSON"))
def _(d):
    (d / "rg").mkdir()
    (d / "rg" / "chain_sum.json").write_text(json.dumps(_family()))
    (d / "rg" / "basic_arith.json").write_text(json.dumps(_family("basic_arith"))[:-10])
    return str(d / "rg")
