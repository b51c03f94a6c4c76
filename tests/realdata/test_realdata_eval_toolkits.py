"""Real eval-toolkit outputs, format-only excerpts (tests/fixtures/realdata/<name>/PROVENANCE.txt).

lm-evaluation-harness 0.4.10.dev0, google/gemma-2b on masakhaner_luo_prompt_2, run 0-shot and 5-shot.
Values below were read by hand from the files: the same doc_hash for docs 0 and 1 in both runs with
different prompt_hash (one document, two prompts); empty filtered_resps for 0-shot docs 1-2 and
5-shot docs 0-1; f1,flexible-extract 0.031648559281985525 / 0.09508963367104017; num_fewshot 0 / 5;
n-samples effective 185 (the excerpt keeps 3 and 2 of them).

Qwen2.5-Math toolkit (fork) outputs of two models on aime25 and amc23x8, and lighteval details of one
model on GPQA-diamond sampled once and eight times: values read by hand as each test's comment says
(qwen25_math_one_shot_em/PROVENANCE.txt, lighteval_gpqa_olmo/PROVENANCE.txt).
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


QWEN_RUNS = Path(__file__).parents[1] / "fixtures" / "realdata" / "qwen25_math_one_shot_em"


def _qwen_side(run: str, tmp_path):
    out = tmp_path / f"{run}.parquet"
    report = ingest_source(str(QWEN_RUNS / run), out, hub=None)
    return report, read_traces(out).to_pylist()


@pytest.mark.parametrize(
    ("run", "right", "acc"),
    [
        # read by hand from the excerpt: score true in 2 of aime25's 30 rows and 161 of amc23x8's 320
        # (7B), 0 and 146 (1.5B); acc as the _metrics.json beside each file prints it
        ("7B-eval-math-cot-nobox-to-pi1", {"aime25": 2, "amc23x8": 161}, {"aime25": 6.7, "amc23x8": 50.3}),
        ("1.5B-eval-math-cot-nobox-to-pi1", {"aime25": 0, "amc23x8": 146}, {"aime25": 0.0, "amc23x8": 45.6}),
    ],
)
def test_qwen_real_rows_equal_the_toolkits_own_metrics(tmp_path, run, right, acc):
    """Real per-sample files of the Qwen2.5-Math toolkit (a fork whose metrics json also holds its
    prompts and total_acc): every row read, and rldelta's accuracy per benchmark equals the toolkit's."""
    report, rows = _qwen_side(run, tmp_path)
    assert report.source_kind == "qwen_math_eval"
    assert (report.rows_read, report.rows_written, report.skipped) == (350, 350, {})
    assert report.accounting["inputs_read"] == 4  # two jsonl + their two metrics files
    by_family = {f: [r for r in rows if r["task_family"] == f] for f in ("aime25", "amc23x8")}
    assert {f: len(v) for f, v in by_family.items()} == {"aime25": 30, "amc23x8": 320}
    assert {f: sum(r["reward"] for r in v) for f, v in by_family.items()} == right
    checks = {(t["family"], t["metric"]): t for t in report.toolkit}
    for family, value in acc.items():
        assert checks[(family, "acc")]["toolkit"] == value and checks[(family, "acc")]["agrees"]
        assert checks[(family, "num_scores")]["rldelta"] == len(by_family[family])
    assert toolkit_check("baseline_traces", report.accounting).passed is True


def test_qwen_real_missing_extractions_and_copied_dataset(tmp_path):
    """7B amc23x8: pred "" at idx 35 and 83 (the metrics file's empty_samples 2) -- kept as rows
    without an answer. amc23x8 is 40 questions written 8 times, each copy its own idx: 320 task ids,
    40 question hashes (what the pairing table reports as one question under several ids)."""
    _, rows = _qwen_side("7B-eval-math-cot-nobox-to-pi1", tmp_path)
    amc = [r for r in rows if r["task_family"] == "amc23x8"]
    assert sorted(r["task_id"] for r in amc if no_answer(r["answer"])) == ["amc23x8/35", "amc23x8/83"]
    assert all(r["reward"] == 0.0 for r in amc if no_answer(r["answer"]))
    assert len({r["task_id"] for r in amc}) == 320 and len({r["task_key"] for r in amc}) == 40
    by_id = {r["task_id"]: r for r in amc}
    assert by_id["amc23x8/0"]["task_key"] == by_id["amc23x8/40"]["task_key"] == by_id["amc23x8/280"]["task_key"]
    first = by_id["amc23x8/0"]
    assert (first["expected_answer"], first["answer"], first["reward"]) == ("27", "27", 1.0)
    assert json.loads(first["gen_settings"]) == {
        "prompt_template": "qwen25-math-cot",
        "temperature": 0.6,
        "seed": 0,
        "split": "test",
        "repeats_per_task": 1,
    }


def test_qwen_real_pair_pairs_every_question(tmp_path):
    """The 7B and 1.5B runs evaluated the same questions: every task key on one side is on the other."""
    _, big = _qwen_side("7B-eval-math-cot-nobox-to-pi1", tmp_path)
    _, small = _qwen_side("1.5B-eval-math-cot-nobox-to-pi1", tmp_path)
    assert {r["task_key"] for r in big} == {r["task_key"] for r in small}
    assert len({r["task_key"] for r in big}) == 70  # 30 aime25 + 40 amc23 questions


LIGHTEVAL = Path(__file__).parents[1] / "fixtures" / "realdata" / "lighteval_gpqa_olmo"


def _lighteval_side(run: str, tmp_path):
    out = tmp_path / f"{run}.parquet"
    report = ingest_source(str(LIGHTEVAL / run / "details"), out, hub=None)
    return report, read_traces(out).to_pylist()


@pytest.mark.parametrize(
    ("run", "right", "answers"),
    [
        # read by hand: gpqa_pass@1:1_samples is 1.0 in 48 (one_sample) and 52 (eight_samples) of 198 rows;
        # extracted_predictions' first letter counted over the rows
        ("one_sample", 48, {"D": 133, "B": 54, "C": 10, "A": 1}),
        ("eight_samples", 52, {"D": 135, "B": 53, "C": 9, "A": 1}),
    ],
)
def test_lighteval_real_details_match_their_results_json(tmp_path, run, right, answers):
    """Real lighteval details (flat Detail layout): every row read; the mean reward equals the
    results json's gpqa_pass@1:1_samples for the task (the json sits in results/, beside details/)."""
    report, rows = _lighteval_side(run, tmp_path)
    assert report.source_kind == "lighteval_details"
    assert (report.rows_read, report.rows_written, report.skipped, report.notes) == (198, 198, {}, {})
    assert {r["task_family"] for r in rows} == {"gpqa:diamond"}
    assert sum(r["reward"] for r in rows) == right
    (results_file,) = (LIGHTEVAL / run / "results").glob("results_*.json")
    toolkit = json.loads(results_file.read_text())["results"]["lighteval|gpqa:diamond|0"]["gpqa_pass@1:1_samples"]
    assert sum(r["reward"] for r in rows) / len(rows) == pytest.approx(toolkit, abs=1e-12)
    checks = {t["metric"]: t for t in report.toolkit}  # the reader's own comparison with that json
    assert checks["gpqa_pass@1:1_samples"]["toolkit"] == toolkit and checks["gpqa_pass@1:1_samples"]["agrees"]
    assert (checks["effective_num_docs"]["toolkit"], checks["effective_num_docs"]["rldelta"]) == (198, 198)
    assert toolkit_check("baseline_traces", report.accounting).passed is True
    got: dict[str, int] = {}
    for r in rows:
        got[r["answer"]] = got.get(r["answer"], 0) + 1
    assert got == answers
    golds: dict[str, int] = {}
    for r in rows:
        golds[r["expected_answer"]] = golds.get(r["expected_answer"], 0) + 1
    assert golds == {"A": 56, "D": 53, "B": 45, "C": 44}


def test_lighteval_real_pair_differs_in_samples_per_question(tmp_path):
    """One model sampled once vs eight times per question: the same 198 questions pair, and the
    sample count is a settings difference (pass@1 over 8 samples is not the same measurement)."""
    _, before = _lighteval_side("one_sample", tmp_path)
    _, after = _lighteval_side("eight_samples", tmp_path)
    kb, ka = [r["task_key"] for r in before], [r["task_key"] for r in after]
    assert len(set(kb)) == 198 and set(kb) == set(ka)
    assert json.loads(before[0]["gen_settings"]) == {"few_shot": 0}
    assert json.loads(after[0]["gen_settings"]) == {"few_shot": 0, "samples_per_doc": 8}
    # one generation per row records no sample count: the other side's 8 is the only difference
    assert settings_differences(before, after, kb, ka) == [
        {"setting": "samples_per_doc", "before": "not recorded", "after": "8"}
    ]


def test_lighteval_results_json_that_disagrees_fails_the_check(tmp_path):
    """The same real run with one document's metric flipped in the details (49 of 198 right): the
    results json's 0.2424... no longer matches and the toolkit check fails, naming the metric."""
    import shutil

    import pyarrow.parquet as pq

    run = tmp_path / "one_sample"
    shutil.copytree(LIGHTEVAL / "one_sample", run)
    (details,) = (run / "details").glob("*.parquet")
    table = pq.read_table(details)
    rows = table.to_pylist()
    wrong = next(i for i, r in enumerate(rows) if r["metrics"]["gpqa_pass@1:1_samples"] == 0.0)
    rows[wrong]["metrics"]["gpqa_pass@1:1_samples"] = 1.0
    pq.write_table(_table_of(rows, table.schema), details)
    report = ingest_source(str(run), tmp_path / "o.parquet", hub=None)
    check = {t["metric"]: t for t in report.toolkit}["gpqa_pass@1:1_samples"]
    assert check["rldelta"] == pytest.approx(49 / 198) and check["agrees"] is False
    assert toolkit_check("baseline_traces", report.accounting).passed is False


def _table_of(rows, schema):
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=schema)
