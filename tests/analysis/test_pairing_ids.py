"""Near-miss task ids (exported rows, Harbor): a stated normalisation is suggested, never applied
silently; `settings.task_id_normalisation` applies it; the WARN checks say what the report says."""

from __future__ import annotations

import dagster as dg
import pandas as pd
import pytest

from rl_assets.analysis.pairing.pairs import id_normaliser, near_miss, pair_rows
from rl_assets.analysis.pairing.report import pairing_section
from rl_assets.analysis.q1.behavioral_delta import compute_behavioral_delta
from rl_assets.support.pairing_checks import pairing_checks
from rl_assets.values.task_identity import NORMALISED_ID

TASKS = ["fix-git", "hello-world", "build-linux", "sqlite-index", "regex-log", "chess-move"]


def rows(ids, passed=False):
    return [{"task_id": t, "benchmark": "terminal-bench", "passed": passed, "reward": float(passed)} for t in ids]


BEFORE = rows([f"terminal-bench/{t.title()}@2.0" for t in TASKS])  # prefix, other case, version tag
AFTER = rows(TASKS + ["only-after"], passed=True)


def test_near_miss_is_reported_not_applied():
    pairing = pair_rows(BEFORE, AFTER)
    assert pairing.common == []  # nothing applied silently
    near = pairing.report["near_miss"]
    assert near["paired"] == 0 and near["would_pair"] == len(TASKS) and near["of"] == len(TASKS)
    assert near["rules"] == ["case", "prefix", "version"]  # the fewest rules that pair them all
    assert near["examples"][0] == ["terminal-bench/Build-Linux@2.0", "build-linux"]
    md = "\n".join(pairing_section(pairing.report))
    assert "Near-miss task ids" in md and "task_id_normalisation" in md and "Not applied" in md


def test_the_setting_applies_the_normalisation():
    pairing = pair_rows(BEFORE, AFTER, normalise=["case", "prefix", "version"])
    assert len(pairing.common) == len(TASKS) and pairing.report["near_miss"] is None
    (group,) = pairing.report["groups"]
    assert group["how"] == {NORMALISED_ID: len(TASKS)} and group["only_after"] == 1
    q1 = compute_behavioral_delta(
        pd.DataFrame(BEFORE), pd.DataFrame(AFTER), n_boot=200, normalise=["case", "prefix", "version"]
    )
    assert q1["common_tasks"] == len(TASKS) and q1["task_flips"]["newly_passing"] == len(TASKS)
    assert "terminal-bench/Fix-Git@2.0" in q1["task_flips"]["newly_passing_tasks"]  # shown as task ids, not keys
    with pytest.raises(ValueError, match="unknown"):
        pair_rows(BEFORE, AFTER, normalise=["strip_everything"])


def test_ids_that_already_pair_raise_no_near_miss():
    assert near_miss(set(TASKS), set(TASKS) | {"x"}) is None
    assert near_miss({"t1", "t2"}, {"u1", "u2"}) is None  # no stated rule pairs them: nothing to suggest


def test_each_rule_on_its_own():
    assert id_normaliser(["case"], ["A", "b"])("Fix-Git") == "fix-git"
    assert id_normaliser(["prefix"], ["tb/a", "tb/b"])("tb/a") == "a"
    assert id_normaliser(["suffix"], ["a.v2.task", "b.v2.task"])("a.v2.task") == "a"
    for tagged in ("a@1.2", "a:v3", "a-v2", "a_v1.0"):
        assert id_normaliser(["version"], [tagged])(tagged) == "a"
    assert id_normaliser(["version"], ["task_12"])("task_12") == "task_12"  # a number is not a version tag
    assert id_normaliser(["prefix"], ["only-one"])("only-one") == "only-one"  # one id has no common prefix


def test_the_checks_warn_on_a_near_miss_and_on_setting_differences():
    before = [dict(r, gen_settings='{"max_tokens": 2048}') for r in BEFORE]
    after = [dict(r, gen_settings='{"max_tokens": 8192}') for r in AFTER]
    ids, settings = pairing_checks("behavioral_delta", pair_rows(before, after).report)
    assert not ids.passed and ids.severity == dg.AssetCheckSeverity.WARN and "would pair 6" in ids.description
    assert not settings.passed and settings.description == "max_tokens: 2048 before, 8192 after"
    ids, settings = pairing_checks("behavioral_delta", pair_rows(AFTER, AFTER).report)
    assert ids.passed and settings.passed
