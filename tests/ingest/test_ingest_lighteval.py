"""lighteval details parquet (issue 35), both layouts, hand-made with pyarrow in the columns lighteval's
DetailsLogger writes (src/lighteval/logging/info_loggers.py: the flat ``Detail`` up to 0.9; ``doc`` /
``model_response`` / ``metric`` from 0.10). No real details file was found in the stored public
material; the values below are the ones written here."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rl_assets.ingest import IngestError, ingest_source, read_traces


def _ingest(spec, tmp_path, name="t"):
    out = tmp_path / f"{name}.parquet"
    report = ingest_source(str(spec), out, hub=None)
    return report, sorted(read_traces(out).to_pylist(), key=lambda r: r["task_id"])


def test_old_layout_generative_math(tmp_path):
    rows = [
        {
            "example": f"What is {i}+{i}?",
            "instruction": "",
            "full_prompt": f"<5-shot prompt> What is {i}+{i}?",
            "num_effective_few_shots": 5,
            "num_asked_few_shots": 5,
            "predictions": [f"<response {i}>"],
            "gold": [str(2 * i)],
            "choices": [],
            "gold_index": [],
            "metrics": {"extractive_match": float(i % 2)},
            "specifics": json.dumps({"extracted_predictions": [str(2 * i)] if i % 2 else []}),
        }
        for i in range(4)
    ]
    folder = tmp_path / "details" / "org__model" / "2026-01-01T00-00-00"
    folder.mkdir(parents=True)
    pq.write_table(
        pa.Table.from_pylist(rows), folder / "details_lighteval|math_500|5_2026-01-01T00-00-00.000000.parquet"
    )
    report, table = _ingest(tmp_path / "details", tmp_path)
    assert report.source_kind == "lighteval_details" and report.rows_written == 4
    assert [r["task_id"] for r in table] == [f"math_500/{i}" for i in range(4)]
    assert [r["reward"] for r in table] == [0.0, 1.0, 0.0, 1.0]
    assert [r["answer"] for r in table] == [None, "2", None, "6"]  # only where the metric extracted one
    assert [r["expected_answer"] for r in table] == ["0", "2", "4", "6"]
    assert json.loads(table[0]["gen_settings"]) == {"few_shot": 5}
    assert table[0]["task_key_source"] == "question_hash"


def test_new_layout_multiple_choice(tmp_path):
    rows = [
        {
            "doc": {"query": f"Q{i}: pick one", "choices": ["A", "B", "C"], "gold_index": i % 3, "specific": None},
            "model_response": {"text": [f"<response {i}>"], "logprobs": [-1.0, -0.5, -2.0]},
            "metric": {"loglikelihood_acc": float(i % 3 == 1)},
        }
        for i in range(3)
    ]
    path = tmp_path / "details_leaderboard|arc:challenge|0_2026-02-02T10-00-00.123456.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    report, table = _ingest(path, tmp_path)
    assert report.rows_written == 3
    assert [r["task_id"] for r in table] == ["arc:challenge/0", "arc:challenge/1", "arc:challenge/2"]
    assert [r["reward"] for r in table] == [0.0, 1.0, 0.0]
    assert [r["expected_answer"] for r in table] == ["A", "B", "C"]
    assert json.loads(table[0]["gen_settings"]) == {"few_shot": 0}


def test_an_unknown_parquet_fails_naming_its_columns(tmp_path):
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"prompt": ["p"] * 3, "completion": ["c"] * 3, "score": [1.0, 0.0, 1.0]}), path)
    with pytest.raises(IngestError, match=r"3 rows found, 0 understood .*\['completion', 'prompt', 'score'\]"):
        ingest_source(str(path), tmp_path / "o.parquet", hub=None)
