"""Bad-input cases, issue 13 items 5 and 6 for folders of data files: shards found however
they are stored (symlinked sub-folders, .gz/.bz2/.zst, arrays led by a null or a header), files
that are not read listed with the reason, duplicate rows merged or told apart. Registered into
bad_inputs.CASES on import."""

from __future__ import annotations

import bz2
import gzip
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

from rl_assets.ingest import IngestError
from rl_assets.ingest.dedup import DUPLICATE, SAME_KEY
from rl_assets.ingest.walk import BROKEN_LINK, HIDDEN, REPEAT
from support.bad_inputs import _c, atif, jsonl, row, step

REDUCED = "earlier episode of the same trial (kept the last)"


# -- folders of data files -----------------------------------------------------------------------
@_c("folder_json_array_first_element_null", ("ok", 3, {"row is not an object": 1}))
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "b.json").write_text(json.dumps([None, row(task="b"), row(task="c")]))
    return str(d / "data")


@_c("folder_json_array_header_object_first", ("ok", 2, {"missing task id": 1}))
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "c.json").write_text(json.dumps([{"version": 1, "columns": ["task"]}, row(task="d")]))
    return str(d / "data")


@_c("folder_symlinked_shard_subfolder", ("ok", 3, {}), task_ids=["t1", "x", "y"])
def _(d):
    (d / "real").mkdir()
    jsonl(d / "real" / "a.jsonl", [row(task="x"), row(task="y")])
    (d / "data").mkdir()
    jsonl(d / "data" / "b.jsonl", [row()])
    os.symlink(d / "real", d / "data" / "linked")
    return str(d / "data")


@_c("folder_symlink_loop", ("ok", 1, {}), inputs_merged={REPEAT: 1})
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    os.symlink(d / "data", d / "data" / "self")
    return str(d / "data")


@_c("folder_shard_file_linked_twice", ("ok", 1, {}), inputs_merged={REPEAT: 1})
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    os.symlink(d / "data" / "a.jsonl", d / "data" / "b.jsonl")
    return str(d / "data")


def _compressed(d, name: str, opener) -> str:
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    with opener(d / "data" / name) as fh:
        fh.write(json.dumps(row(task="z")).encode() + b"\n")
    return str(d / "data")


@_c("folder_jsonl_gz_shard", ("ok", 2, {}), task_ids=["t1", "z"])
def _(d):
    return _compressed(d, "b.jsonl.gz", lambda p: gzip.open(p, "wb"))


@_c("folder_jsonl_zst_shard", ("ok", 2, {}), task_ids=["t1", "z"])
def _(d):
    return _compressed(d, "b.jsonl.zst", lambda p: pa.CompressedOutputStream(str(p), "zstd"))


@_c("folder_jsonl_bz2_shard", ("ok", 2, {}), task_ids=["t1", "z"])
def _(d):
    return _compressed(d, "b.jsonl.bz2", lambda p: bz2.open(p, "wb"))


@_c("single_parquet_gz_file", ("ok", 2, {}))
def _(d):
    pq.write_table(pa.Table.from_pylist([row(), row(task="b")]), d / "x.parquet")
    (d / "x.parquet.gz").write_bytes(gzip.compress((d / "x.parquet").read_bytes()))
    (d / "x.parquet").unlink()
    return str(d / "x.parquet.gz")


@_c("single_json_array_gz_file", ("ok", 2, {}))
def _(d):
    (d / "x.json.gz").write_bytes(gzip.compress(json.dumps([row(), row(task="b")]).encode()))
    return str(d / "x.json.gz")


@_c("folder_corrupt_gz_shard", ("error", IngestError, "b.jsonl.gz: unreadable file"))
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "b.jsonl.gz").write_bytes(gzip.compress(b'{"task": "z"}\n' * 50)[:40])
    return str(d / "data")


@_c(
    "folder_xz_shard_listed_not_read",
    ("ok", 1, {}),
    not_read={"compressed with an unsupported codec (use .gz, .bz2 or .zst, or decompress it)": 1},
    lost=1,
)
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "b.jsonl.xz").write_bytes(b"\xfd7zXZ\x00")
    return str(d / "data")


@_c(
    "folder_readme_and_dataset_info_are_not_losses",
    ("ok", 1, {}),
    lost=0,
    not_read={"not a trace data file": 1, "JSON document of another kind (not trace data)": 1},
)
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "README.md").write_text("# traces\n")
    (d / "data" / "dataset_info.json").write_text('{"features": {}}')
    return str(d / "data")


@_c(
    "folder_csv_beside_jsonl_is_a_loss",
    ("ok", 1, {}),
    not_read={"unsupported table format .csv (export parquet or JSONL)": 1},
    lost=1,
)
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "more.csv").write_text("task,result\nt2,1.0\n")
    return str(d / "data")


@_c("folder_broken_symlink", ("ok", 1, {}), not_read={BROKEN_LINK: 1}, lost=1)
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    os.symlink(d / "gone.jsonl", d / "data" / "b.jsonl")
    return str(d / "data")


@_c("folder_hidden_entries_not_searched", ("ok", 1, {}), not_read={HIDDEN: 2}, lost=0)
def _(d):
    (d / "data" / ".cache").mkdir(parents=True)
    jsonl(d / "data" / "a.jsonl", [row()])
    jsonl(d / "data" / ".cache" / "copy.jsonl", [row()])
    (d / "data" / ".gitattributes").write_text("*.jsonl lfs\n")
    return str(d / "data")


@_c(
    "folder_atif_file_among_rows",
    ("ok", 1, {}),
    not_read={"ATIF trajectory among other data files (ingest it on its own)": 1},
    lost=1,
)
def _(d):
    (d / "data").mkdir()
    jsonl(d / "data" / "a.jsonl", [row()])
    (d / "data" / "case.trajectory.json").write_text(json.dumps(atif([step(1)])))
    return str(d / "data")


# -- duplicates ----------------------------------------------------------------------------------
@_c("dup_same_rows_in_two_shards", ("ok", 2, {}), merged={DUPLICATE: 2})
def _(d):
    (d / "data").mkdir()
    for shard in ("a", "b"):
        jsonl(d / "data" / f"{shard}.jsonl", [row(trial="tr1"), row(task="b", trial="tr2")])
    return str(d / "data")


@_c("dup_same_rows_in_parquet_shards", ("ok", 2, {}), merged={DUPLICATE: 2})
def _(d):
    (d / "data").mkdir()
    for shard in ("a", "b"):
        pq.write_table(
            pa.Table.from_pylist([row(trial="tr1"), row(task="b", trial="tr2")]), d / "data" / f"{shard}.parquet"
        )
    return str(d / "data")


@_c("dup_repeated_task_trial_without_episode_identical", ("ok", 1, {}), merged={DUPLICATE: 2})
def _(d):
    return jsonl(d / "x.jsonl", [row(trial="tr")] * 3)


@_c("dup_repeated_task_trial_without_episode_different", ("ok", 3, {}, {SAME_KEY: 2}))
def _(d):
    return jsonl(d / "x.jsonl", [row(trial="tr", result=r) for r in ("1.0", "0.0", "0.5")])


@_c("dup_last_episode_in_two_shards", ("ok", 1, {}), merged={REDUCED: 2, DUPLICATE: 1})
def _(d):
    (d / "data").mkdir()
    for shard in ("a", "b"):
        jsonl(d / "data" / f"{shard}.jsonl", [row(trial="tr", episode=1), row(trial="tr", episode=2)])
    return str(d / "data")


@_c("dup_recorded_attempt_repeated", ("ok", 1, {}), merged={DUPLICATE: 1})
def _(d):
    return jsonl(d / "x.jsonl", [row(attempt=0), row(attempt=0)])


@_c("dup_rows_without_trial_are_attempts_not_duplicates", ("ok", 2, {}))
def _(d):
    return jsonl(d / "x.jsonl", [row(), row()])  # a deterministic model answers twice alike


@_c("dup_trial_rows_with_and_without_recorded_attempt", ("ok", 2, {}, {SAME_KEY: 1}))
def _(d):
    return jsonl(d / "x.jsonl", [row(trial="tr", attempt=0), row(trial="tr")])  # both get the trial's attempt 0
