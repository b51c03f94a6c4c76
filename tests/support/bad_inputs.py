"""Generated bad-input corpus for the ingest layer (no committed data blobs).

Each case writes its input under a tmp folder and returns the spec plus the exact expected
outcome: ("error", ExceptionType, substring of the message) or
("ok", rows_written, {skip reason: count}[, {note reason: count}]) -- without the notes dict
the run must record no notes. Keyword expectations (``Case.extra``): ``merged`` {reason: n}
(default none), ``not_read`` {reason: n} inputs not read (default none), ``inputs_merged``,
``lost`` (default: every skip), ``where`` (a fragment some skip example must contain),
``task_ids`` (the sorted task ids written). Cases for issue 13 (discovery, per-row isolation,
silently ignored inputs, duplicates) live in bad_inputs_harbor.py, bad_inputs_folders.py and
bad_inputs_rows.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from rl_assets.ingest import IngestError


def row(task="t1", trial=None, episode=None, result="1.0", **extra) -> dict:
    r = {
        "conversations": [{"role": "user", "content": "do it"}, {"role": "assistant", "content": "done"}],
        "task": task,
        "result": result,
        "date": "2026-01-01T00:00:00Z",
    }
    if trial is not None:
        r["trial_name"] = trial
    if episode is not None:
        r["episode"] = f"episode-{episode}"
    r.update(extra)
    return r


def jsonl(path: Path, rows: list, tail: bytes = b"") -> str:
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in rows) + tail)
    return str(path)


def atif(steps: list, **root) -> dict:
    return {
        "schema_version": "ATIF-v1.6",
        "session_id": "s",
        "agent": {"name": "a", "version": "1"},
        "steps": steps,
        **root,
    }


def step(i, source="agent", msg="hi", **kw) -> dict:
    return {"step_id": i, "source": source, "message": msg, **kw}


def trial_dir(root: Path, name: str, result, traj=None) -> Path:
    d = root / name
    (d / "agent").mkdir(parents=True)
    if result is not None:
        (d / "result.json").write_text(result if isinstance(result, str) else json.dumps(result))
    if traj is not None:
        (d / "agent" / "trajectory.json").write_text(traj if isinstance(traj, str) else json.dumps(traj))
    return d


TRIAL_OK = {"task_name": "t1", "trial_name": "t1__abc", "verifier_result": {"rewards": {"reward": 1.0}}}


@dataclass
class Case:
    name: str
    build: Callable[[Path], str]
    expect: tuple
    extra: dict = field(default_factory=dict)


def _c(name, expect, **extra):
    def deco(fn):
        CASES.append(Case(name, fn, expect, extra))
        return fn

    return deco


CASES: list[Case] = []
E = "error"


@_c("jsonl_truncated_mid_file", ("ok", 2, {"invalid JSON": 1}))  # one bad row, not the whole file
def _(d):
    return jsonl(d / "x.jsonl", [row()], b'{"task": "t2", "conv\n' + json.dumps(row()).encode() + b"\n")


@_c("jsonl_truncated_last_line", ("ok", 1, {"truncated last line": 1}))
def _(d):
    return jsonl(d / "x.jsonl", [row()], b'{"task": "t2", "conversations": [')


@_c("jsonl_invalid_utf8", (E, IngestError, "1 rows found, 0 understood (invalid UTF-8 x1)"))
def _(d):
    (d / "x.jsonl").write_bytes(b'{"task": "t\xff\xfe", "result": "1.0"}\n')
    return str(d / "x.jsonl")


@_c("jsonl_empty_file", ("ok", 0, {}))
def _(d):
    return jsonl(d / "x.jsonl", [])


@_c("jsonl_missing_task_id", ("ok", 1, {"missing task id": 2}))
def _(d):
    return jsonl(d / "x.jsonl", [row(), row(task=None, trial="only-trial"), row(task="  ")])


@_c("jsonl_row_not_object", ("ok", 1, {"row is not an object": 1}))
def _(d):
    return jsonl(d / "x.jsonl", [row(), [1, 2]])


@_c("jsonl_conversations_wrong_type", ("ok", 1, {"conversation is not a list of messages": 2}))
def _(d):
    return jsonl(d / "x.jsonl", [row(), row(task="b", conversations=42), row(task="c", conversations=["x"])])


@_c("jsonl_missing_conversations_column", ("ok", 2, {}))
def _(d):
    rows = [row(), row(task="b")]
    for r in rows:
        del r["conversations"]
    return jsonl(d / "x.jsonl", rows)


@_c("jsonl_bad_date_kept", ("ok", 1, {}, {"unparseable date (kept, date null)": 1}))
def _(d):
    return jsonl(d / "x.jsonl", [row(date="not a date")])


@_c("json_array_truncated", (E, IngestError, "not valid JSON"))
def _(d):
    (d / "x.json").write_text(json.dumps([row()])[:-5])
    return str(d / "x.json")


@_c("json_array_of_scalars", (E, IngestError, "not an ATIF trajectory"))
def _(d):
    (d / "x.json").write_text("[1, 2, 3]")
    return str(d / "x.json")


@_c("json_unrelated_object", (E, IngestError, "unrecognized JSON"))
def _(d):
    (d / "x.json").write_text('{"hello": "world"}')
    return str(d / "x.json")


@_c("parquet_corrupt", (E, IngestError, "unreadable parquet shard"))
def _(d):
    (d / "x.parquet").write_bytes(b"PAR1 this is not parquet")
    return str(d / "x.parquet")


@_c("parquet_shards_differing_schemas", ("ok", 3, {}))
def _(d):
    (d / "data").mkdir()
    pq.write_table(pa.Table.from_pylist([row(), row(task="b")]), d / "data" / "a.parquet")
    pq.write_table(
        pa.Table.from_pylist([row(task="c", result=None, trace_source="main", prompt_token_ids=[[1, 2]])]),
        d / "data" / "b.parquet",
    )
    return str(d / "data")


@_c("parquet_without_task_column", (E, IngestError, "2 rows found, 0 understood (missing task id x2)"))
def _(d):
    pq.write_table(pa.table({"trial_name": ["a", "b"], "result": ["1.0", "0.0"]}), d / "x.parquet")
    return str(d / "x.parquet")


@_c("missing_local_path", (E, FileNotFoundError, "does-not-exist.jsonl"))
def _(d):
    return str(d / "does-not-exist.jsonl")


@_c("missing_relative_path_not_hub", (E, FileNotFoundError, "./nope/traces"))
def _(d):
    return "./nope/traces"


@_c("hub_id_without_hub", (E, IngestError, "no hub backend"))
def _(d):
    return "hf:org/name"


@_c("garbage_spec", (E, IngestError, "neither an existing path"))
def _(d):
    return "not a spec at all"


@_c("unsupported_suffix", (E, IngestError, "unsupported file type"))
def _(d):
    (d / "x.csv").write_text("a,b\n")
    return str(d / "x.csv")


@_c("empty_folder", (E, IngestError, "no Harbor trials and no data files"))
def _(d):
    (d / "empty").mkdir()
    return str(d / "empty")


@_c("atif_step_ids_out_of_order", (E, IngestError, "1 trajectories found, 0 understood (invalid ATIF trajectory x1)"))
def _(d):
    (d / "case.trajectory.json").write_text(json.dumps(atif([step(1, "user"), step(3), step(2)])))
    return str(d / "case.trajectory.json")


@_c("atif_unknown_step_source", (E, IngestError, "1 trajectories found, 0 understood (invalid ATIF trajectory x1)"))
def _(d):
    (d / "case.trajectory.json").write_text(json.dumps(atif([step(1, "robot")])))
    return str(d / "case.trajectory.json")


@_c("atif_missing_continuation", (E, IngestError, "1 trajectories found, 0 understood (invalid ATIF trajectory x1)"))
def _(d):
    (d / "case.trajectory.json").write_text(
        json.dumps(atif([step(1)], continued_trajectory_ref="trajectory.cont-9.json"))
    )
    return str(d / "case.trajectory.json")


@_c("atif_bare_file_without_task", (E, IngestError, "1 trajectories found, 0 understood (missing task id x1)"))
def _(d):
    (d / "trajectory.json").write_text(json.dumps(atif([step(1)])))
    return str(d / "trajectory.json")


@_c("atif_unsupported_version", (E, IngestError, "unsupported schema_version"))
def _(d):
    (d / "x.json").write_text(json.dumps(atif([step(1)], schema_version="ATIF-v9")))
    return str(d / "x.json")


@_c("harbor_trial_truncated_result_json", ("ok", 1, {"unreadable result.json": 1}))
def _(d):
    trial_dir(d / "job", "good__1", TRIAL_OK, atif([step(1)]))
    trial_dir(d / "job", "bad__2", '{"task_name": "t1", "trial')
    return str(d / "job")


@_c("harbor_trial_without_task_name", ("ok", 1, {"missing task id": 1}))
def _(d):
    trial_dir(d / "job", "good__1", TRIAL_OK, atif([step(1)]))
    trial_dir(d / "job", "anon__2", {"trial_name": "anon__2", "verifier_result": {"rewards": {"reward": 0}}})
    return str(d / "job")


@_c("harbor_trial_bad_trajectory", ("ok", 1, {"invalid ATIF trajectory": 1}))
def _(d):
    trial_dir(d / "job", "good__1", TRIAL_OK, atif([step(1)]))
    trial_dir(d / "job", "bad__2", {**TRIAL_OK, "trial_name": "bad__2"}, '{"steps": [')
    return str(d / "job")


@_c("rg_non_numeric_score", ("ok", 1, {"non-numeric score": 1}))
def _(d):
    data = {
        "name": "chain_sum",
        "config": {"seed": 1},
        "results": [
            {
                "question": "1+1",
                "expected_answer": "2",
                "completions": [
                    {"model_answer": "2", "full_model_response": "2", "score": 1.0},
                    {"model_answer": "x", "full_model_response": "x", "score": "oops"},
                ],
            }
        ],
    }
    (d / "chain_sum.json").write_text(json.dumps(data))
    return str(d / "chain_sum.json")


@_c("rg_result_item_wrong_type", ("ok", 1, {"result item is not an object": 1}))
def _(d):
    data = {
        "name": "chain_sum",
        "config": {},
        "results": ["junk", {"question": "q", "expected_answer": "a", "model_answer": "a", "score": 1.0}],
    }
    (d / "chain_sum.json").write_text(json.dumps(data))
    return str(d / "chain_sum.json")


# -- review fixes (B1-B8) -------------------------------------------------------------------
NON_FINITE = "non-finite result (kept, reward null)"
INT_RANGE = "integer outside int64 range (kept, value null)"
DATE_NOTE = "unparseable date (kept, date null)"
JOB_NOTE = "unusable job-level result.json entry (ignored)"


@_c("jsonl_non_finite_results", ("ok", 5, {}, {NON_FINITE: 5}))
def _(d):  # json.dumps writes inf as Infinity (orjson refuses it; the stdlib fallback reads it)
    return jsonl(
        d / "x.jsonl",
        [row(task=f"t{k}", result=v) for k, v in enumerate(["inf", "Infinity", "1e400", float("inf"), "-inf"])],
    )


@_c("jsonl_nan_written_by_json_dump", ("ok", 1, {}))
def _(d):
    return jsonl(d / "x.jsonl", [row(result=float("nan"))])


@_c("rg_bool_null_non_finite_scores", ("ok", 1, {"non-numeric score": 2, "non-finite score": 2}))
def _(d):
    comps = [
        {"model_answer": "2", "full_model_response": "2", "score": s} for s in (1.0, True, None, "inf", float("inf"))
    ]
    data = {
        "name": "chain_sum",
        "config": {"seed": 1},
        "results": [{"question": "1+1", "expected_answer": "2", "completions": comps}],
    }
    (d / "chain_sum.json").write_text(json.dumps(data))
    return str(d / "chain_sum.json")


@_c("hub_id_with_dots_is_not_local", (E, IngestError, "no hub backend"))
def _(d):
    return "laion/Qwen2.5-7B-traces"


@_c("hub_id_with_version_suffix_is_not_local", (E, IngestError, "no hub backend"))
def _(d):
    return "org/model-v1.5"


@_c("missing_dot_relative_data_file", (E, FileNotFoundError, "./missing.jsonl"))
def _(d):
    return "./missing.jsonl"


@_c("missing_bare_relative_data_file", (E, FileNotFoundError, "data/x.parquet"))
def _(d):
    return "data/x.parquet"


@_c("jsonl_reasoning_content_list_and_dict", ("ok", 2, {}))
def _(d):
    conv = lambda rc: [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "reasoning_content": rc}]
    return jsonl(
        d / "x.jsonl",
        [
            row(conversations=conv([{"type": "text", "text": "think"}])),
            row(task="b", conversations=conv({"text": "think"})),
        ],
    )


@_c("jsonl_role_is_a_list", ("ok", 1, {}))
def _(d):
    return jsonl(d / "x.jsonl", [row(conversations=[{"role": ["assistant"], "content": "x"}])])


@_c("jsonl_tool_calls_not_a_list", ("ok", 2, {}))
def _(d):
    return jsonl(
        d / "x.jsonl",
        [
            row(conversations=[{"role": "assistant", "content": "x", "tool_calls": 5}]),
            row(task="b", conversations=[{"role": "assistant", "content": "x", "tool_calls": "[1"}]),
        ],
    )


@_c("jsonl_ints_beyond_int64", ("ok", 3, {}, {INT_RANGE: 3}))
def _(d):
    return jsonl(
        d / "x.jsonl",
        [
            row(task_index=1e20),
            row(task="b", attempt="99999999999999999999"),
            row(task="c", trial="tr", episode="99999999999999999999"),
        ],
    )


@_c("harbor_job_result_with_bad_stats", ("ok", 2, {}, {JOB_NOTE: 2}))
def _(d):
    trial_dir(d / "job", "good__1", TRIAL_OK, atif([step(1)]))
    trial_dir(d / "job", "noverdict__2", {"task_name": "t2", "trial_name": "noverdict__2"}, atif([step(1)]))
    (d / "job" / "result.json").write_text(
        json.dumps(
            {
                "stats": {
                    "evals": {
                        "a__m__bench": {"reward_stats": {"reward": {"high": ["noverdict__2"], "0.5": ["x"]}}},
                        "b__m__bench": "not an object",
                    }
                }
            }
        )
    )
    return str(d / "job")


@_c(
    "jsonl_conversation_string_not_json",
    ("ok", 1, {}, {"conversation string is not JSON (kept as one assistant message)": 1}),
)
def _(d):
    r = row()
    del r["conversations"]
    r["conversation"] = "plain text, not JSON"
    return jsonl(d / "x.jsonl", [r])


@_c("jsonl_messages_null_falls_back_to_conversation", ("ok", 1, {}))
def _(d):
    r = row()
    del r["conversations"]
    r["messages"], r["conversation"] = None, [{"role": "assistant", "content": "x"}]
    return jsonl(d / "x.jsonl", [r])


@_c(
    "jsonl_bad_dates_noted_for_kept_episodes_only",
    ("ok", 1, {}, {DATE_NOTE: 1}),
    merged={"earlier episode of the same trial (kept the last)": 3},
)
def _(d):
    return jsonl(d / "x.jsonl", [row(trial="tr", episode=k, date="garbage") for k in range(4)])
