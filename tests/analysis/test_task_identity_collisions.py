"""Task identity, issue 36 item 3: two distinct tasks of one eval file with the same question are said in
the pairing report (a task-id collision), and invisible characters (a zero-width space, a BOM) never keep
two identical questions apart. Files are real reasoning-gym eval files written by tests/support/identity_files.
"""

from __future__ import annotations

import copy

from rl_assets.analysis.audit import AUDIT_COLUMNS
from rl_assets.analysis.pairing.pairs import pair_rows
from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.ingest import ingest_source, read_traces
from rl_assets.values.task_identity import QUESTION_HASH, question_key
from support.identity_files import dataset_doc, write_results_json

N = 12
LEGS = {"seed": 7, "size": N}


def _table(doc: dict, tmp_path, name: str) -> list[dict]:
    spec = write_results_json(tmp_path / f"{name}.json", [doc])
    out = tmp_path / f"{name}.parquet"
    ingest_source(str(spec), out, hub=None)
    return read_traces(out, AUDIT_COLUMNS).to_pylist()


def test_two_tasks_with_one_question_in_one_file_are_reported_as_a_collision(tmp_path):
    doc = dataset_doc("leg_counting", LEGS)
    doc["results"][1]["question"] = doc["results"][0]["question"]  # two tasks of the file ask the same thing
    before = _table(doc, tmp_path, "b")
    after = _table(dataset_doc("leg_counting", LEGS), tmp_path, "a")
    ids = [r["task_id"] for r in before[:2]]
    assert ids[0] != ids[1] and before[0]["task_key"] == before[1]["task_key"]  # one key, by the content rule
    report = pair_rows(before, after).report
    (group,) = report["groups"]
    assert group["collisions_before"] == 1 and group["collisions_after"] == 0
    assert group["examples_collision"] == [sorted(ids)]
    text = "\n".join(pairing_section(report))
    assert "task-id collision: 1 pairing key(s) on the baseline side and 0 on the post-RL side" in text
    assert f"`{sorted(ids)[0]}` = `{sorted(ids)[1]}`" in text


def test_files_without_shared_questions_report_no_collision(tmp_path):
    before = _table(dataset_doc("leg_counting", LEGS), tmp_path, "b")
    after = _table(dataset_doc("leg_counting", LEGS), tmp_path, "a")
    report = pair_rows(before, after).report
    assert [(g["collisions_before"], g["collisions_after"]) for g in report["groups"]] == [(0, 0)]
    assert "collision" not in "\n".join(pairing_section(report))


def test_a_zero_width_space_or_a_bom_does_not_split_one_question(tmp_path):
    doc = dataset_doc("leg_counting", LEGS)
    marked = copy.deepcopy(doc)
    for i, r in enumerate(marked["results"]):
        invisible = ("\ufeff", "\u200b", "\u200d", "\u2060")[i % 4]
        r["question"] = invisible + r["question"].replace(" ", " \u200b", 1)
    before, after = _table(doc, tmp_path, "b"), _table(marked, tmp_path, "a")
    pairing = pair_rows(before, after)
    assert len(pairing.common) == N and pairing.report["groups"][0]["how"] == {QUESTION_HASH: N}


def test_the_question_key_is_taken_after_nfc_and_without_invisible_characters():
    q = "How many legs do 3 cafe\u0301 cats have?"  # a decomposed é
    assert question_key("f", "\ufeff" + q.replace("legs", "le\u200bgs")) == question_key("f", q)
    assert question_key("f", q) == question_key("f", "How many legs do 3 caf\u00e9 cats have?")
    assert question_key("f", q) != question_key("f", q.replace("3", "4"))


def test_ids_one_normalisation_maps_together_are_a_collision_too():
    rows = [{"task_id": t, "benchmark": "tb", "passed": True} for t in ("Fix-Git", "fix-git", "hello")]
    report = pair_rows(rows, rows, normalise=["case"]).report
    assert report["groups"][0]["collisions_before"] == 1
    assert report["groups"][0]["examples_collision"][0] == ["Fix-Git", "fix-git"]
