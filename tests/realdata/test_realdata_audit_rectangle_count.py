"""The symptom "post-RL mean 0.097 as recorded, 0.216 re-scored" on the real family behind it.

rectangle_count from the reasoning-gym paper's inter-generalisation files (Qwen2.5-3B-Instruct
before RL, and after 500 RL steps on games, on the same seeded cognition tasks), trimmed to numbers
in tests/fixtures/realdata/reasoning_gym_cognition/ (PROVENANCE.txt there). Expected values were
read by hand from the raw files, not produced by rldelta:

- recorded means: ``"average_score": 0.0`` (before) and ``"average_score": 0.09666666666666666`` (after);
- ``"total_examples": 100``, 3 completions each;
- re-scored means 0.004267 and 0.216133: reasoning-gym alone, ``sum(sum(d.score_answer(c['model_answer'],
  d[i]) for c in r['completions'])/3 for i, r in enumerate(results))/100`` with
  ``d = reasoning_gym.create_dataset('rectangle_count', size=100, seed=42)``;
- recorded != re-score on 4 of 300 completions before and 91 of 300 after (the same loop);
- the post-RL model answers "1" on 197 of 300 completions, the pre-RL model on 0; 9 of the 100
  expected answers are "1"; ``d.score_answer('1', d[i])`` averages 0.2708 over the 100 tasks.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest
import reasoning_gym

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows, report
from rl_assets.ingest import ingest_source, read_traces

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "realdata" / "reasoning_gym_cognition"
FILES = {
    "before": "original_to_cognition.rectangle_count.json",
    "after": "games_qwen_3b_500_to_cognition.rectangle_count.json",
}


def _restore_questions(doc: dict) -> dict:
    """The fixture keeps each question's sha256 only; put back the regenerated question after
    checking that the installed reasoning-gym generates the very task the model was shown."""
    doc = copy.deepcopy(doc)
    for cat in doc["categories"]:
        for ds in cat["datasets"]:
            data = reasoning_gym.create_dataset(ds["name"], **ds["config"])
            for i, result in enumerate(ds["results"]):
                question = data[i]["question"]
                assert hashlib.sha256(question.encode()).hexdigest() == result.pop("question_sha256"), (
                    f"installed reasoning-gym no longer regenerates {ds['name']} task {i}"
                )
                result["question"] = question
    return doc


@pytest.fixture(scope="module")
def row(tmp_path_factory):
    root = tmp_path_factory.mktemp("rectangle_count")
    tables = {}
    for side, name in FILES.items():
        path = root / side / "results.json"
        path.parent.mkdir()
        path.write_text(json.dumps(_restore_questions(json.loads((FIXTURES / name).read_text()))))
        report_ = ingest_source(str(path), root / f"{side}.parquet", hub=None)
        assert report_.rows_written == 300 and not report_.skipped
        tables[side] = read_traces(root / f"{side}.parquet", AUDIT_COLUMNS).to_pylist()
    (only,), _ = audit_rows(tables["before"], tables["after"], n_boot=2000, seed=0)
    return only


def test_the_report_shows_0_097_recorded_beside_0_216_re_scored(row):
    ru = row["rulers"]
    assert row["n_tasks"] == 100 and ru["label_ruler"] == "re-scored"
    assert ru["recorded"]["reward_before"] == 0.0
    assert ru["recorded"]["reward_after"] == pytest.approx(0.09666666666666666, abs=5e-5)
    assert ru["re-scored"]["reward_before"] == pytest.approx(0.004267, abs=5e-5)
    assert ru["re-scored"]["reward_after"] == pytest.approx(0.216133, abs=5e-5)
    assert ru["disagreeing_attempts"] == {"before": 4, "before_attempts": 300, "after": 91, "after_attempts": 300}
    md = report.render_markdown(report.build_report([dict(row)]), "games_qwen_3b_500")
    assert "| rectangle_count | re-scored | 0.000 → 0.097 [" in md and "| 0.004 → 0.216 [" in md
    assert 'under the recorded ruler: **gamed** — It answers "1" on 66% of attempts' in md


def test_gamed_under_both_rulers_so_the_label_does_not_depend_on_it(row):
    """Re-scored, answer "1" earns partial credit for near counts (0.2708 > post-RL 0.2161); under
    the recorded full-credit-only ruler it is right on the 9 tasks whose count is 1 (0.09), and the
    post-RL 0.0967 <= 0.09 + 0.05. Either way RL moved the model to "1" on 66% of its attempts."""
    ru = row["rulers"]
    assert ru["recorded"]["scorer"].endswith(
        "full credit only (1 when the installed scorer gives 1.0, else 0) reproduces all 600 recorded scores"
    )
    assert (ru["re-scored"]["label"], ru["recorded"]["label"]) == ("gamed", "gamed")
    assert ru["depends_on_ruler"] is False and ru["flag"] is None
    one = next(b for b in row["baselines"] if b["strategy"] == "always answer 1")
    assert one["score"] == 0.2708 and one["imitation_k"] == 197 and one["imitation_n"] == 300
    assert one["imitation_before"] == 0.0
    assert (
        row["explanation"]
        == 'It answers "1" on 66% of attempts (before RL 0%); that alone scores 0.271 (post-RL 0.216).'
    )
    assert ru["recorded"]["explanation"] == (
        'It answers "1" on 66% of attempts (before RL 0%); that alone scores 0.090 (post-RL 0.097).'
    )


def test_every_newly_passing_task_is_the_constant_answer_1(row):
    """Read by hand from the fixture (json only): the tasks whose 3 pre-RL completions all scored 0
    and whose post-RL completions score 1.0 on at least 2 of 3 are indexes 1, 15, 27, 44, 62, 71, 81,
    85, 97, each expecting "1" and answered "1"; the post-RL model answers "1" on 86 of the 100
    tasks, whose expected answers take 10 values. Wilson 95% of 9 in 9 (z = 1.96): 0.70085 to 1."""
    check = row["contrastive"]
    assert (check["newly_passing"], check["flagged"], check["by_rule"]) == (9, 9, {"constant_answer": 9})
    # "task" is the task id the eval file gives (``<family>/<index>``); "key" the content identity
    assert sorted(int(t["task"].rsplit("/", 1)[1]) for t in check["tasks"]) == [1, 15, 27, 44, 62, 71, 81, 85, 97]
    assert check["share"] == 1.0 and check["share_ci"] == [0.7008, 1.0]
    # its null model, counted by hand (json only): "1" is the answer of >= 2 of 3 completions on 70 of the
    # 100 tasks, 9 tasks expect it; pass rate by task 0 -> 29/300 = 0.0967, and 3/300 = 0.01 once the 26
    # passes that answered "1" count as failures; 26 of the 197 completions answering "1" pass (13%);
    # scipy.stats.binomtest(70, 100, 0.09, alternative="greater").pvalue = 1.1e-49
    assert check["tasks"][0]["evidence"]["constant_answer"] == (
        '"1" on 70/100 tasks (70%) vs 9% expected (expected answers), binomial p 1.1e-49 (< 0.01 needed); 13% '
        "of the post-RL attempts giving it pass; its passes carry 90% of the gain (+0.097; +0.010 without them)"
    )
