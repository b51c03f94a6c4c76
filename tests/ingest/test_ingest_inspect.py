"""Inspect eval logs (issue 35): the real JSON excerpt (tests/fixtures/realdata/inspect_theory_of_mind,
see its PROVENANCE.txt) and ``.eval`` archives built here, deflated and zstd-compressed, with two epochs."""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path

import pyarrow as pa
import pytest

from rl_assets.ingest import IngestError, ingest_source, read_traces
from rl_assets.support.checks import toolkit_check

REAL = Path(__file__).parents[1] / "fixtures" / "realdata" / "inspect_theory_of_mind"
LOG = REAL / "2025-06-09T19-48-49_theory-of-mind.json"


def _ingest(spec, tmp_path, name="t"):
    out = tmp_path / f"{name}.parquet"
    report = ingest_source(str(spec), out, hub=None)
    return report, read_traces(out).to_pylist()


def test_real_inspect_json_log(tmp_path):
    report, rows = _ingest(LOG, tmp_path)
    assert report.source_kind == "inspect_log" and (report.rows_read, report.rows_written) == (1, 1)
    (row,) = rows
    assert row["task_id"] == "theory_of_mind/1" and row["attempt"] == 0
    assert row["reward"] == 1.0 and row["answer"] == "<extracted answer>"  # value "C", the scorer's answer
    assert row["expected_answer"] == "<target of sample 1>" and row["model"] == "openai/gpt-4o"
    assert row["task_key_source"] == "question_hash"
    assert [m["role"] for m in json.loads(row["conversation"])] == ["user", "assistant", "user", "assistant"]
    settings = json.loads(row["gen_settings"])
    assert settings["solvers"] == ["prompt_template", "generate", "self_critique"]
    assert settings["eval_harness_version"] == "inspect_ai 0.3.50"
    by_metric = {r["metric"]: r for r in report.toolkit}
    acc = by_metric["model_graded_fact accuracy"]
    assert (acc["toolkit"], acc["rldelta"], acc["agrees"]) == (0.81, 1.0, False)  # 1 of the 100 samples kept
    assert (by_metric["completed_samples"]["toolkit"], by_metric["completed_samples"]["rldelta"]) == (100, 1)
    assert toolkit_check("post_rl_traces", report.accounting).passed is False


def _zip(path: Path, members: dict[str, bytes], method: int) -> None:
    """A zip written by hand, so a member can use zstd (method 93), which Python 3.11 cannot write."""
    out, central = bytearray(), bytearray()
    for name, data in members.items():
        crc = zlib.crc32(data)
        if method == 93:
            body = pa.compress(data, codec="zstd", asbytes=True)
        else:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            body = c.compress(data) + c.flush()
        offset = len(out)
        nb = name.encode()
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(body), len(data), len(nb), 0)
        out += nb + body
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            method,
            0,
            0x21,
            crc,
            len(body),
            len(data),
            len(nb),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += nb
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0)
    path.write_bytes(bytes(out + central + end))


def _eval_log(path: Path, method: int, values=(("C", "4"), ("I", ""), ("C", "6"), ("P", "3"))) -> None:
    header = json.loads(LOG.read_text())
    header.pop("samples")
    header["eval"]["task"] = "arith"
    header["eval"]["config"] = {"epochs": 2}
    header["plan"]["config"] = {"temperature": 0.7, "max_tokens": 512}
    header["results"] = {
        "total_samples": 4,
        "completed_samples": 4,
        "scores": [{"name": "match", "metrics": {"accuracy": {"name": "accuracy", "value": 0.625}}}],
    }
    members = {"header.json": json.dumps(header).encode()}
    for k, (value, answer) in enumerate(values):
        sid, epoch = k // 2 + 1, k % 2 + 1
        sample = {
            "id": sid,
            "epoch": epoch,
            "input": f"What is {sid} + {sid}? ünïcödé",
            "target": str(2 * sid),
            "messages": [{"role": "user", "content": [{"type": "text", "text": f"What is {sid} + {sid}?"}]}],
            "scores": {"match": {"value": value, "answer": answer}},
        }
        members[f"samples/{sid}_epoch_{epoch}.json"] = json.dumps(sample, ensure_ascii=False).encode()
    _zip(path, members, method)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, 93], ids=["deflate", "zstd"])
def test_eval_archive_epochs_are_attempts(tmp_path, method):
    path = tmp_path / "logs" / "2026-01-01T00-00-00_arith.eval"
    path.parent.mkdir()
    _eval_log(path, method)
    report, rows = _ingest(path.parent, tmp_path)
    assert report.source_kind == "inspect_log" and report.rows_written == 4
    by = {(r["task_id"], r["attempt"]): r for r in rows}
    assert [by[("arith/1", a)]["reward"] for a in (0, 1)] == [1.0, 0.0]
    assert [by[("arith/2", a)]["reward"] for a in (0, 1)] == [1.0, 0.5]  # P = 0.5 (value_to_float)
    assert by[("arith/1", 1)]["answer"] == ""
    assert by[("arith/1", 0)]["task_key"] == by[("arith/1", 1)]["task_key"]
    settings = json.loads(rows[0]["gen_settings"])
    assert settings["temperature"] == 0.7 and settings["max_tokens"] == 512 and settings["repeats_per_task"] == 2
    acc = next(r for r in report.toolkit if r["metric"] == "match accuracy")
    assert (acc["toolkit"], acc["rldelta"], acc["agrees"]) == (0.625, 0.625, True)


def test_an_eval_archive_without_header_fails_naming_it(tmp_path):
    path = tmp_path / "x.eval"
    _zip(path, {"samples/1_epoch_1.json": b"{}"}, zipfile.ZIP_DEFLATED)
    with pytest.raises(IngestError, match=r"x\.eval: an \.eval archive without header\.json"):
        ingest_source(str(path), tmp_path / "o.parquet", hub=None)
