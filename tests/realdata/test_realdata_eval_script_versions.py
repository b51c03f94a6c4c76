"""Two REAL evaluation files of one model on the same seeded tasks, written by two versions of the
reasoning-gym evaluation script (tests/fixtures/realdata/rg_eval_script_versions/PROVENANCE.txt).

Read by hand from the files (never produced by rldelta):
- chain_sum: config {"size": 50, "seed": 45} in both; the 20 kept questions are identical, one by one.
- leg_counting: the same config, but the Feb file's questions carry a worked example ("Example: ...
  Output: 30") that the Mar file's do not: reasoning-gym changed the template. The animals are the same,
  the question the model saw is not: 0 of 20 identical.
- summary.json: Feb records git_hash 5b8d1b5..., no max_tokens/temperature/top_p/system prompt, one
  completion per task; Mar records git_hash ea73749..., max_tokens 32768, temperature 0.6, top_p 0.95,
  completions_per_prompt 3 and a system prompt (also written in each family file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.analysis.pairing.pairs import DISJOINT, pair_rows
from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.ingest import ingest_source, read_traces
from rl_assets.values.task_identity import QUESTION_HASH

DATA = Path(__file__).parents[1] / "fixtures" / "realdata" / "rg_eval_script_versions"


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("versions")
    out = {}
    for side, folder in (("before", "v1_20250227"), ("after", "v3_20250315")):
        ingest_source(str(DATA / folder), tmp / f"{side}.parquet", hub=None)
        out[side] = read_traces(tmp / f"{side}.parquet", AUDIT_COLUMNS).to_pylist()
    return out


def test_identical_questions_pair_and_a_changed_template_does_not(sides):
    report = pair_rows(sides["before"], sides["after"]).report
    groups = {g["group"]: g for g in report["groups"]}
    chain, legs = groups["chain_sum"], groups["leg_counting"]
    assert (chain["paired"], chain["only_before"], chain["only_after"], chain["how"]) == (20, 0, 0, {QUESTION_HASH: 20})
    assert (legs["paired"], legs["only_before"], legs["only_after"], legs["status"]) == (0, 20, 20, DISJOINT)
    assert legs["same_id_other_question"] == 20 and legs["examples_only_before"][0] == "leg_counting/0"
    md = "\n".join(pairing_section(report))
    assert "**leg_counting:** 20 task ids are on both sides with a different question" in md


def test_the_script_versions_settings_differ(sides):
    differ = {
        d["setting"]: (d["before"], d["after"])
        for d in pair_rows(sides["before"], sides["after"]).report["settings_differ"]
    }
    assert set(differ) == {
        "eval_git_hash",
        "max_tokens",
        "temperature",
        "top_p",
        "repeats_per_task",
        "system_prompt_sha1",
        "attempts per task (observed)",
    }
    assert differ["eval_git_hash"] == (
        "5b8d1b5175c4e8dcb00c3adad2b6c4c44d274adc",
        "ea737491d337d8b1e34bb638af13183aedc92d39",
    )
    assert differ["max_tokens"] == ("not recorded", "32768") and differ["top_p"] == ("not recorded", "0.95")
    assert differ["repeats_per_task"] == ("not recorded", "3")
    assert differ["attempts per task (observed)"] == ("1", "3")


def test_the_audit_labels_the_unpaired_family_as_not_compared(sides):
    rows, _ = audit_rows(sides["before"], sides["after"], n_boot=200)
    by = {r["family"]: r for r in rows}
    assert by["chain_sum"]["n_tasks"] == 20
    assert by["leg_counting"]["n_tasks"] == 0 and by["leg_counting"]["label"] == DISJOINT


def test_q1_pairs_the_same_tasks_and_keeps_their_ids(sides):
    """Q1 names tasks by task id; leg_counting/0 is on both sides but is two different questions, so it
    must not pair there either (its post-RL label gets the key appended)."""
    import pandas as pd

    from rl_assets.analysis.q1.behavioral_delta import compute_behavioral_delta

    r = compute_behavioral_delta(pd.DataFrame(sides["before"]), pd.DataFrame(sides["after"]), n_boot=200)
    assert r["common_tasks"] == 20 and r["only_before_tasks"] == 20 and r["only_after_tasks"] == 20
    assert r["groups"]["task_family"]["chain_sum"]["common_tasks"] == 20
    assert r["groups"]["task_family"]["leg_counting"]["common_tasks"] == 0
