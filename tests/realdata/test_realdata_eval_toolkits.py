"""Real eval-toolkit outputs, format-only excerpts (tests/fixtures/realdata/<name>/PROVENANCE.txt).

lm-evaluation-harness 0.4.10.dev0, google/gemma-2b on masakhaner_luo_prompt_2, run 0-shot and 5-shot.
Values below were read by hand from the files: the same doc_hash for docs 0 and 1 in both runs with
different prompt_hash (one document, two prompts); empty filtered_resps for 0-shot docs 1-2 and
5-shot docs 0-1; f1,flexible-extract 0.031648559281985525 / 0.09508963367104017; num_fewshot 0 / 5;
n-samples effective 185 (the excerpt keeps 3 and 2 of them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rl_assets.analysis.pairing.settings import settings_differences
from rl_assets.ingest import ingest_source, read_traces
from rl_assets.support.checks import toolkit_check
from rl_assets.values.answers import no_answer

LM_EVAL = Path(__file__).parents[1] / "fixtures" / "realdata" / "lm_eval_masakhaner_luo"


def _read(side: str, tmp_path):
    out = tmp_path / f"{side}.parquet"
    report = ingest_source(str(LM_EVAL / side), out, hub=None)
    return report, sorted(read_traces(out).to_pylist(), key=lambda r: r["task_id"])


def test_lm_eval_real_samples_read_with_their_results(tmp_path):
    report, rows = _read("zero_shot", tmp_path)
    assert report.source_kind == "lm_eval_samples"
    assert (report.rows_read, report.rows_written, report.skipped) == (3, 3, {})
    assert report.accounting["inputs_read"] == 2  # samples + results json
    assert [r["task_id"] for r in rows] == [f"masakhaner_luo_prompt_2/{i}" for i in range(3)]
    assert [no_answer(r["answer"]) for r in rows] == [False, True, True]
    # span F1 is aggregated over the corpus: each sample records [gold, pred], no number
    assert [r["reward"] for r in rows] == [None, None, None]
    assert report.notes == {"per-sample metric is not a number (kept, reward null)": 3}
    settings = json.loads(rows[0]["gen_settings"])
    assert settings["few_shot"] == 0 and settings["answer_extraction"] == "flexible-extract"
    assert settings["stop_sequences"] == ["</s>", "<|im_end|>"] and settings["do_sample"] is False
    assert settings["eval_harness_version"] == "0.4.10.dev0"


def test_lm_eval_toolkit_check_catches_the_trimmed_excerpt(tmp_path):
    """The results json says 185 documents; the excerpt holds 3: the check fails, naming both."""
    report, _ = _read("zero_shot", tmp_path)
    by_metric = {r["metric"]: r for r in report.toolkit}
    f1 = by_metric["f1,flexible-extract"]
    assert f1["toolkit"] == 0.031648559281985525 and f1["compared"] is False and f1["agrees"]
    count = by_metric["n-samples effective"]
    assert (count["toolkit"], count["rldelta"], count["agrees"]) == (185, 3, False)
    assert toolkit_check("baseline_traces", report.accounting).passed is False


def test_lm_eval_zero_vs_five_shot_pair_by_document_and_differ_in_settings(tmp_path):
    _, before = _read("five_shot", tmp_path)
    _, after = _read("zero_shot", tmp_path)
    keys_before = {r["task_id"]: r["task_key"] for r in before}
    keys_after = {r["task_id"]: r["task_key"] for r in after}
    assert set(keys_before.values()) <= set(keys_after.values())  # docs 0 and 1: one doc_hash, two prompt_hash
    assert [no_answer(r["answer"]) for r in before] == [True, True]
    diffs = settings_differences(before, after, list(keys_before.values()), list(keys_after.values()))
    assert {"setting": "few_shot", "before": "5", "after": "0"} in diffs


QWEN = Path(__file__).parents[1] / "fixtures" / "realdata" / "qwen25_math_metrics"


@pytest.mark.parametrize(
    ("benchmark", "n", "right", "agrees"),
    [
        ("gaokao_math_cloze", 118, 81, True),  # 68.64 -> 68.6, the real acc
        ("gaokao_math_cloze", 118, 80, False),  # 67.80: one answer lost is seen
        ("gaokao_math_cloze", 118, 82, False),  # 69.49
        ("gaokao_math_qa", 351, 200, True),  # 56.98 -> 57.0
        ("gaokao_math_qa", 351, 199, False),  # 56.70
    ],
)
def test_qwen_real_summaries_against_rows(tmp_path, benchmark, n, right, agrees):
    """Real _metrics.json of Qwen2.5-Math-7B-Instruct (QwenLM/Qwen2.5-Math issue #35) beside rows
    built in the toolkit's shape: the acc check resolves one answer at the summary's one decimal."""
    from support.eval_toolkits import qwen_file, qwen_row

    rows = [qwen_row(i, f"<q {i}>", f"<gt {i}>", ["x"], [i < right]) for i in range(n)]
    path = qwen_file(tmp_path / "eval", benchmark, rows, metrics=False)
    real = json.loads((QWEN / f"{benchmark}.metrics.json").read_text())
    (path.parent / (path.name.removesuffix(".jsonl") + "_qwen25-math-cot_metrics.json")).write_text(json.dumps(real))
    report = ingest_source(str(path.parent), tmp_path / "o.parquet", hub=None)
    by = {r["metric"]: r for r in report.toolkit}
    assert by["acc"]["toolkit"] == real["acc"] and by["acc"]["agrees"] is agrees
    assert (by["num_samples"]["toolkit"], by["num_samples"]["rldelta"], by["num_samples"]["agrees"]) == (n, n, True)
