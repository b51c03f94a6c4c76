"""Task identity by content (issue 23): hand-made eval files written by two "script versions".

Each spelling difference (defaults spelled out vs left out, key order, a renamed category, a field a
newer reasoning-gym adds) must still pair every task; configs that look alike but generate other
questions must pair none; and the pairing report counts what it says it counts.
"""

from __future__ import annotations

import pandas as pd
import pytest

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.analysis.pairing.pairs import ONLY_AFTER, ONLY_BEFORE, pair_rows
from rl_assets.analysis.q1.behavioral_delta import compute_behavioral_delta
from rl_assets.ingest import ingest_source, read_traces
from rl_assets.values.task_identity import QUESTION_HASH, TASK_ID, question_key, row_key
from support.identity_files import dataset_doc, spelled_out, write_family_files, write_results_json

N = 12
CHAIN = {"seed": 42, "size": N}
LEGS = {"seed": 7, "size": N}


def _table(spec, tmp_path, name):
    out = tmp_path / f"{name}.parquet"
    ingest_source(str(spec), out, hub=None)
    return read_traces(out, AUDIT_COLUMNS).to_pylist()


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory):
    """Baseline: results.json, short configs, category "arithmetic", right on a third of the tasks.
    Post-RL: per-family files, every default spelled out in reverse key order plus a field of a newer
    version, category renamed, right everywhere."""
    tmp = tmp_path_factory.mktemp("versions")
    before = write_results_json(
        tmp / "base" / "results.json",
        [
            dataset_doc("chain_sum", CHAIN, right=lambda i: i % 3 == 0),
            dataset_doc("leg_counting", LEGS, right=lambda i: i % 3 == 0),
        ],
        max_tokens=2048,
        eval_repeats=1,
    )
    after = write_family_files(
        tmp / "post",
        [
            dataset_doc("chain_sum", CHAIN, config=spelled_out("chain_sum", CHAIN, scorer_v2=True), category="math"),
            dataset_doc("leg_counting", LEGS, config=spelled_out("leg_counting", LEGS), category="counting"),
        ],
        max_tokens=2048,
        completions_per_prompt=1,
    )
    return _table(before, tmp, "base"), _table(after, tmp, "post")


def test_every_spelling_difference_still_pairs(two_versions):
    before, after = two_versions
    assert (
        before[0]["task_config"]
        != next(r for r in after if r["task_family"] == before[0]["task_family"])["task_config"]
    )
    report = pair_rows(before, after).report
    assert [(g["group"], g["paired"], g["only_before"], g["only_after"], g["how"]) for g in report["groups"]] == [
        ("chain_sum", N, 0, 0, {QUESTION_HASH: N}),
        ("leg_counting", N, 0, 0, {QUESTION_HASH: N}),
    ]
    assert report["near_miss"] is None and report["settings_differ"] == []


def test_the_audit_and_q1_see_the_same_pairs(two_versions):
    before, after = two_versions
    rows, _ = audit_rows(before, after, n_boot=300)
    assert {r["family"]: r["n_tasks"] for r in rows} == {"chain_sum": N, "leg_counting": N}
    for r in rows:  # a third right before, all right after: a significant gain, re-scored from either config
        assert r["reward_before"] == pytest.approx(1 / 3, abs=1e-4) and r["reward_after"] == 1.0, r
        assert r["scorer"].startswith("reasoning-gym") and r["label"] not in ("not enough data", "no change")
    q1 = compute_behavioral_delta(pd.DataFrame(before), pd.DataFrame(after), n_boot=300)
    assert q1["common_tasks"] == 2 * N and q1["pairing"]["totals"] == {
        "paired": 2 * N,
        "only_before": 0,
        "only_after": 0,
    }


def test_a_row_without_its_question_is_regenerated_from_its_config():
    import reasoning_gym

    entry = reasoning_gym.create_dataset("leg_counting", **LEGS)[5]
    recorded = {
        "task_id": "a",
        "task_family": "leg_counting",
        "question": entry["question"],
        "source_kind": "reasoning_gym",
    }
    bare = {
        "task_id": "b",
        "task_family": "leg_counting",
        "task_index": 5,
        "task_config": '{"size": 12, "min_animals": 3, "seed": 7}',
    }
    assert row_key(recorded) == row_key(bare) == (question_key("leg_counting", entry["question"]), QUESTION_HASH)
    # whitespace is not identity
    assert row_key({**recorded, "question": "  " + entry["question"].replace(" ", "\n ")})[0] == row_key(recorded)[0]
    # a family reasoning-gym does not know, and no question: the task id, said so
    assert row_key({**bare, "task_family": "no_such_family"}) == ("b", TASK_ID)
    # not a generated task (no config, index or reasoning-gym source): the task id, even with a question
    assert row_key({"task_id": "t1", "task_family": "agent-tasks", "question": "Fix the build."}) == ("t1", TASK_ID)


def test_a_shifted_seed_pairs_by_question_not_by_index(tmp_path):
    """reasoning-gym seeds entry i with seed + i: seed 8 entry i IS seed 7 entry i + 1. Same questions pair
    (11 of 12), whatever their index; the task id ("leg_counting/<index>") would have paired the wrong ones."""
    before = _table(write_results_json(tmp_path / "b.json", [dataset_doc("leg_counting", LEGS)]), tmp_path, "b")
    after = _table(
        write_results_json(tmp_path / "a.json", [dataset_doc("leg_counting", {**LEGS, "seed": 8})]), tmp_path, "a"
    )
    pairing = pair_rows(before, after)
    assert len(pairing.common) == N - 1
    index = {
        side: {k: r["task_index"] for k, r in zip(p.keys, rows)}
        for side, p, rows in (("b", pairing.before, before), ("a", pairing.after, after))
    }
    assert all(index["b"][k] == index["a"][k] + 1 for k in pairing.common)


def test_lookalike_configs_that_generate_other_questions_never_pair(tmp_path):
    """Same family name, seed and size; one other parameter: other questions, so no pair — and the label
    says so ("no task in common"), not "not enough data"."""
    before = _table(write_results_json(tmp_path / "b.json", [dataset_doc("leg_counting", LEGS)]), tmp_path, "b")
    other = {**LEGS, "min_instances": 2}
    after = _table(write_results_json(tmp_path / "a.json", [dataset_doc("leg_counting", other)]), tmp_path, "a")
    assert [r["task_id"] for r in before] == [r["task_id"] for r in after]  # the old task ids would pair all 12
    assert pair_rows(before, after).common == []
    (row,), _ = audit_rows(before, after, n_boot=100)
    assert row["n_tasks"] == 0 and row["label"] == "not compared: no task in common"
    assert (
        "share no task"
        in compute_behavioral_delta(pd.DataFrame(before), pd.DataFrame(after), n_boot=100)["invalid_for_comparison"]
    )


def test_the_pairing_report_counts_and_labels(tmp_path):
    """leg_counting: 12 before, the first 9 after; chain_sum only before; basic_arithmetic only after."""
    arith = {"seed": 3, "size": 4}
    before = _table(
        write_results_json(tmp_path / "b.json", [dataset_doc("leg_counting", LEGS), dataset_doc("chain_sum", CHAIN)]),
        tmp_path,
        "b",
    )
    after = _table(
        write_results_json(
            tmp_path / "a.json",
            [dataset_doc("leg_counting", {**LEGS, "size": 9}), dataset_doc("basic_arithmetic", arith)],
        ),
        tmp_path,
        "a",
    )
    groups = {g["group"]: g for g in pair_rows(before, after).report["groups"]}
    assert {k: (g["paired"], g["only_before"], g["only_after"], g["status"]) for k, g in groups.items()} == {
        "basic_arithmetic": (0, 0, 4, ONLY_AFTER),
        "chain_sum": (0, N, 0, ONLY_BEFORE),
        "leg_counting": (9, 3, 0, "paired"),
    }
    assert groups["leg_counting"]["examples_only_before"] == ["leg_counting/10", "leg_counting/11", "leg_counting/9"]
    rows, _ = audit_rows(before, after, n_boot=100)
    labels = {r["family"]: r["label"] for r in rows}
    assert labels["chain_sum"] == ONLY_BEFORE and labels["basic_arithmetic"] == ONLY_AFTER
    assert labels["leg_counting"] not in (ONLY_BEFORE, ONLY_AFTER)


def test_different_generation_settings_are_a_finding(tmp_path):
    docs = [dataset_doc("leg_counting", LEGS)]
    before = _table(
        write_results_json(tmp_path / "b.json", docs, max_tokens=2048, temperature=0.6, top_p=0.9, eval_repeats=1),
        tmp_path,
        "b",
    )
    docs3 = [dataset_doc("leg_counting", LEGS, repeats=3)]
    after = _table(
        write_results_json(tmp_path / "a.json", docs3, max_tokens=4096, temperature=0.6, eval_repeats=3), tmp_path, "a"
    )
    differ = {d["setting"]: (d["before"], d["after"]) for d in pair_rows(before, after).report["settings_differ"]}
    assert differ == {
        "max_tokens": ("2048", "4096"),
        "repeats_per_task": ("1", "3"),
        "top_p": ("0.9", "not recorded"),
        "attempts per task (observed)": ("1", "3"),
    }


def test_a_table_written_before_the_key_columns_pairs_by_the_same_rule(two_versions):
    """Rows without task_key (an older table reads it back as null) get the key computed from the row."""
    before, after = two_versions
    old = [dict(r, task_key=None, task_key_source=None) for r in before]
    assert pair_rows(old, after).common == pair_rows(before, after).common
    assert len(pair_rows(old, after).common) == 2 * N
