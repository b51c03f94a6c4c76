"""Eval-toolkit outputs read by their own readers (issue 35), and a source whose rows are not
understood failing instead of publishing an empty table.

Inputs are hand-made in the toolkits' shapes (tests/support/eval_toolkits.py); the real excerpts are
in tests/realdata/test_realdata_eval_toolkits.py. Expected values are counted by hand from the rows
written below.
"""

from __future__ import annotations

import json
import unicodedata

import pytest

from rl_assets.analysis.pairing.settings import settings_differences
from rl_assets.ingest import IngestError, ingest_source, read_traces
from rl_assets.values.answers import no_answer
from support.eval_toolkits import lm_eval_row, lm_eval_run, qwen_file, qwen_row


def _ingest(spec, tmp_path, name="t"):
    out = tmp_path / "out" / f"{name}.parquet"
    report = ingest_source(str(spec), out, hub=None)
    return report, read_traces(out).to_pylist()


# -- rows present but not understood ---------------------------------------------------------


def test_unrecognised_jsonl_fails_naming_its_keys_and_the_formats_read(tmp_path):
    path = tmp_path / "evals.jsonl"
    path.write_text(
        "".join(json.dumps({"uid": i, "prompt": "p", "completion": "c", "correct": True}) + "\n" for i in range(3))
    )
    out = tmp_path / "out.parquet"
    with pytest.raises(IngestError) as info:
        ingest_source(str(path), out, hub=None)
    msg = str(info.value)
    assert str(path) in msg
    assert "3 rows found, 0 understood (missing task id x3)" in msg
    assert "['completion', 'correct', 'prompt', 'uid']" in msg  # the keys of the first row
    assert "Qwen2.5-Math" in msg and "lm-evaluation-harness" in msg  # what rldelta does read
    assert not out.exists()  # no table, so no report can say "no tasks"


def test_a_large_source_mostly_not_understood_fails(tmp_path):
    """Above 20 rows, fewer than half understood fails too (the stated share)."""
    rows = [{"task": f"t{i}", "result": "1.0"} for i in range(10)] + [{"other": i} for i in range(15)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(IngestError, match=r"25 rows found, 10 understood"):
        ingest_source(str(path), tmp_path / "o.parquet", hub=None)


def test_a_by_design_skip_of_everything_is_not_an_error(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"task": "t", "result": "1.0"}) + "\n")
    report = ingest_source(str(path), tmp_path / "o.parquet", hub=None, max_rows=0)
    assert report.rows_written == 0 and report.skipped == {"beyond the max_rows cap": 1}


# -- Qwen2.5-Math -----------------------------------------------------------------------------


def test_qwen_math_samples_are_attempts_of_one_task_and_match_the_toolkit(tmp_path):
    rows = [
        qwen_row(0, "What is 1+1?", "2", ["2", "2", "3", ""], [True, True, False, False]),
        qwen_row(1, "What is 2+2?", "4", ["4", "5", "4", "4"], [True, False, True, True]),
        qwen_row(2, "What is 3+3?", "6", ["", "", "7", "6"], [False, False, False, True]),
    ]
    qwen_file(tmp_path / "eval", "math500", rows, temperature=0.6)
    report, table = _ingest(tmp_path / "eval", tmp_path)
    assert report.source_kind == "qwen_math_eval"
    assert (report.rows_read, report.rows_written, report.skipped, report.merged) == (12, 12, {}, {})
    assert report.accounting["inputs_read"] == 2  # the jsonl and its _metrics.json
    by_task = {}
    for r in table:
        by_task.setdefault(r["task_id"], []).append(r)
    assert sorted(by_task) == ["math500/0", "math500/1", "math500/2"]
    assert [r["attempt"] for r in by_task["math500/1"]] == [0, 1, 2, 3]
    assert [r["answer"] for r in by_task["math500/2"]] == ["", "", "7", "6"]  # the toolkit's pred, kept
    assert [r["reward"] for r in by_task["math500/0"]] == [1.0, 1.0, 0.0, 0.0]  # and its score
    assert {r["task_key_source"] for r in table} == {"question_hash"}
    assert len({r["task_key"] for r in by_task["math500/1"]}) == 1
    assert sum(no_answer(r["answer"]) for r in table) == 3
    settings = json.loads(table[0]["gen_settings"])
    assert settings == {
        "prompt_template": "qwen25-math-cot",
        "temperature": 0.6,
        "seed": 0,
        "split": "test",
        "repeats_per_task": 4,
    }
    # toolkit acc (QwenLM evaluate.py): first sample per question, 2 of 3 right -> 66.7
    acc = next(r for r in report.toolkit if r["metric"] == "acc")
    assert (acc["toolkit"], acc["rldelta"], acc["agrees"]) == (66.7, 66.6667, True)
    assert "first sample per question" in acc["note"]
    counts = {r["metric"]: (r["toolkit"], r["rldelta"], r["agrees"]) for r in report.toolkit}
    assert counts["num_samples"] == (3, 3, True) and counts["num_scores"] == (12, 12, True)


def test_a_forks_all_sample_acc_also_agrees(tmp_path):
    rows = [qwen_row(i, f"q{i}", "1", ["1", "0"], [True, i == 0]) for i in range(4)]  # 5 of 8 right
    qwen_file(tmp_path / "eval", "aime24", rows, acc=62.5)
    report, _ = _ingest(tmp_path / "eval", tmp_path)
    acc = next(r for r in report.toolkit if r["metric"] == "acc")
    assert acc["agrees"] and acc["rldelta"] == 62.5 and "every sample" in acc["note"]


def test_a_toolkit_acc_rldelta_cannot_reproduce_fails_the_check(tmp_path):
    from rl_assets.support.checks import toolkit_check

    rows = [qwen_row(i, f"q{i}", "1", ["1"], [i < 2]) for i in range(4)]  # 50.0 by the rows
    qwen_file(tmp_path / "eval", "gsm8k", rows, acc=75.0)  # a summary of another run
    report, _ = _ingest(tmp_path / "eval", tmp_path)
    acc = next(r for r in report.toolkit if r["metric"] == "acc")
    assert (acc["toolkit"], acc["rldelta"], acc["agrees"]) == (75.0, 50.0, False)
    result = toolkit_check("baseline_traces", report.accounting)
    assert result.passed is False and "1 of 3 compared values differ" in result.description


def test_without_a_metrics_file_the_check_does_not_apply(tmp_path):
    from rl_assets.support.checks import toolkit_check

    path = qwen_file(tmp_path / "eval", "gsm8k", [qwen_row(0, "q", "1", ["1"], [True])], metrics=False)
    report, table = _ingest(path, tmp_path)
    assert len(table) == 1 and report.toolkit == []
    result = toolkit_check("baseline_traces", report.accounting)
    assert result.passed and result.metadata["applicable"].value is False


def test_unicode_questions_pair_whatever_their_normal_form(tmp_path):
    question = "Résolvez x² = 4 pour x ∈ ℝ, x > 0."
    before = qwen_file(
        tmp_path / "b", "math500", [qwen_row(0, unicodedata.normalize("NFC", question), "2", ["2"], [True])]
    )
    after = qwen_file(
        tmp_path / "a", "math500", [qwen_row(7, unicodedata.normalize("NFD", question), "2", ["2"], [True])]
    )
    _, tb = _ingest(before, tmp_path, "b")
    _, ta = _ingest(after, tmp_path, "a")
    assert tb[0]["task_id"] != ta[0]["task_id"]  # another position in the other file
    assert tb[0]["task_key"] == ta[0]["task_key"]  # the same question
    assert ta[0]["question"] == unicodedata.normalize("NFD", question)  # stored as written


def test_two_prompt_templates_are_a_settings_difference(tmp_path):
    rows = [qwen_row(0, "What is 1+1?", "2", ["2"], [True])]
    _, before = _ingest(qwen_file(tmp_path / "b", "math500", rows, prompt_type="qwen25-math-cot"), tmp_path, "b")
    _, after = _ingest(qwen_file(tmp_path / "a", "math500", rows, prompt_type="qwen-boxed"), tmp_path, "a")
    diffs = settings_differences(before, after, [r["task_key"] for r in before], [r["task_key"] for r in after])
    assert {"setting": "prompt_template", "before": "qwen25-math-cot", "after": "qwen-boxed"} in diffs


def test_qwen_rows_without_idx_or_samples_are_counted_skips(tmp_path):
    rows = [qwen_row(i, f"q{i}", "1", ["1"], [True]) for i in range(3)]
    rows.append({"idx": 9, "question": "q9", "gt": "1", "code": [], "pred": [], "score": []})
    bad = qwen_row(10, "q10", "1", ["1", "1"], [True, True])
    del bad["idx"]
    path = qwen_file(tmp_path / "eval", "gsm8k", [*rows, bad], metrics=False)
    report = ingest_source(str(path), tmp_path / "o.parquet", hub=None)
    assert report.rows_written == 3
    assert report.skipped == {"no sampled answer (code/pred empty)": 1, "missing idx": 2}
    assert report.rows_read == 3 + 1 + 2


# -- lm-evaluation-harness --------------------------------------------------------------------


def _gsm8k(filt="strict-match", marks=(1.0, 0.0, 1.0, 1.0)):
    return [
        lm_eval_row(i, f"How many is {i}+{i}?", str(2 * i), str(2 * i) if m else "[invalid]", m, filt=filt)
        for i, m in enumerate(marks)
    ]


def test_lm_eval_keeps_one_filter_and_matches_its_results(tmp_path):
    rows = _gsm8k() + _gsm8k("flexible-extract", (1.0, 1.0, 1.0, 1.0))
    lm_eval_run(tmp_path / "run", "gsm8k", rows)
    report, table = _ingest(tmp_path / "run", tmp_path)
    assert report.source_kind == "lm_eval_samples"
    assert report.rows_written == 4
    assert report.skipped == {"row of another lm-eval filter (one filter kept per file)": 4}
    assert report.accounting["lost"] == 0  # by design
    assert sorted(r["task_id"] for r in table) == ["gsm8k/0", "gsm8k/1", "gsm8k/2", "gsm8k/3"]
    assert [r["reward"] for r in sorted(table, key=lambda r: r["task_id"])] == [1.0, 0.0, 1.0, 1.0]
    assert sum(no_answer(r["answer"]) for r in table) == 1  # "[invalid]": the regex found nothing
    metric = next(r for r in report.toolkit if r["metric"] == "exact_match,strict-match")
    assert (metric["toolkit"], metric["rldelta"], metric["agrees"]) == (0.75, 0.75, True)
    settings = json.loads(table[0]["gen_settings"])
    assert settings["few_shot"] == 5 and settings["answer_extraction"] == "strict-match"
    assert settings["max_tokens"] == 256 and settings["stop_sequences"] == ["Question:"]


def test_lm_eval_results_that_disagree_fail(tmp_path):
    lm_eval_run(tmp_path / "run", "gsm8k", _gsm8k(), results={"exact_match,strict-match": 0.5})
    report, _ = _ingest(tmp_path / "run", tmp_path)
    metric = next(r for r in report.toolkit if r["metric"] == "exact_match,strict-match")
    assert metric["agrees"] is False and metric["rldelta"] == 0.75


def test_lm_eval_few_shot_change_is_a_settings_difference_and_docs_pair_by_content(tmp_path):
    lm_eval_run(tmp_path / "b", "gsm8k", _gsm8k(), num_fewshot=5)
    after_rows = [
        dict(r, arguments={"gen_args_0": {"arg_0": "<0-shot> " + r["doc"]["question"], "arg_1": {}}}) for r in _gsm8k()
    ]
    lm_eval_run(tmp_path / "a", "gsm8k", after_rows, num_fewshot=0)
    _, before = _ingest(tmp_path / "b", tmp_path, "b")
    _, after = _ingest(tmp_path / "a", tmp_path, "a")
    assert {r["task_key"] for r in before} == {r["task_key"] for r in after}  # other prompts, the same docs
    diffs = settings_differences(before, after, [r["task_key"] for r in before], [r["task_key"] for r in after])
    assert {"setting": "few_shot", "before": "5", "after": "0"} in diffs


def test_lm_eval_older_list_arguments_and_multiple_choice(tmp_path):
    row = {
        "doc_id": 0,
        "doc": {"q": "2+2?", "choices": ["3", "4"]},
        "target": 1,
        "arguments": [["2+2? Answer:", " 3"], ["2+2? Answer:", " 4"]],
        "resps": [[[-2.5, False]], [[-0.1, True]]],
        "filtered_resps": [[-2.5, False], [-0.1, True]],
        "acc": 1.0,
    }
    path = tmp_path / "samples_arc_easy_2024-05-01T10-00-00.123456.jsonl"
    path.write_text(json.dumps(row) + "\n")
    report, table = _ingest(path, tmp_path)
    assert report.rows_written == 1
    assert table[0]["task_id"] == "arc_easy/0" and table[0]["answer"] == "1" and table[0]["reward"] == 1.0
    assert table[0]["expected_answer"] == "1"
    assert json.loads(table[0]["conversation"])[0]["content"] == "2+2? Answer:"


def test_two_toolkits_in_one_folder_are_refused(tmp_path):
    qwen_file(tmp_path / "mixed", "gsm8k", [qwen_row(0, "q", "1", ["1"], [True])])
    lm_eval_run(tmp_path / "mixed", "gsm8k", _gsm8k())
    with pytest.raises(IngestError, match="mixes"):
        ingest_source(str(tmp_path / "mixed"), tmp_path / "o.parquet", hub=None)


def test_a_summary_alone_is_refused_with_what_to_give(tmp_path):
    lm_eval_run(tmp_path / "run", "gsm8k", _gsm8k())
    with pytest.raises(IngestError, match="without its per-sample file"):
        ingest_source(
            str(tmp_path / "run" / "results_2026-01-01T00-00-00.000001.json"), tmp_path / "o.parquet", hub=None
        )


def test_qwen_rows_written_twice_are_merged_once(tmp_path):
    """math_eval.py without --overwrite appends reloaded samples: the same question twice is one task."""
    row = qwen_row(3, "What is 2+3?", "5", ["5", "4"], [True, False])
    other = qwen_row(4, "What is 2+4?", "6", ["6", "6"], [True, True])
    path = qwen_file(tmp_path / "eval", "gsm8k", [row, other, dict(row)], metrics=False)
    report = ingest_source(str(path), tmp_path / "o.parquet", hub=None)
    assert (report.rows_read, report.rows_written) == (6, 4)
    assert report.merged == {"identical row found again (kept once)": 2}


def test_lm_eval_unicode_docs_pair_across_runs(tmp_path):
    question = "Combien font 2 × 3 ? Réponse en chiffres 🙂"
    rows = [lm_eval_row(0, question, "6", "6", 1.0)]
    lm_eval_run(tmp_path / "b", "mgsm_fr", rows, time="2026-01-01T00-00-00.000001")
    lm_eval_run(tmp_path / "a", "mgsm_fr", [dict(rows[0], doc_id=7)], time="2026-02-01T00-00-00.000001")
    _, before = _ingest(tmp_path / "b", tmp_path, "b")
    _, after = _ingest(tmp_path / "a", tmp_path, "a")
    assert before[0]["task_id"] == "mgsm_fr/0" and after[0]["task_id"] == "mgsm_fr/7"
    assert before[0]["task_key"] == after[0]["task_key"]  # the same doc, another position
    assert question in before[0]["question"]  # the doc as written, non-ASCII kept
