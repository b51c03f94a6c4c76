"""Labels from a synthetic before/after pair built from real reasoning-gym tasks, and the rules."""

from __future__ import annotations

import pytest

from rl_assets.analysis.audit import audit_rows
from rl_assets.analysis.audit.labels import MIN_TASKS, Evidence, StrategyEvidence, label
from support.audit_synth import scenario


@pytest.fixture(scope="module")
def audited():
    before, after, expected = scenario()
    rows, _ = audit_rows(before, after, n_boot=500, seed=0)
    return {r["family"]: r for r in rows}, expected


def test_every_family_gets_the_expected_label(audited):
    rows, expected = audited
    assert {f: r["label"] for f, r in rows.items()} == expected


def test_gamed_explanation_names_the_answer_and_its_score(audited):
    row = audited[0]["letter_counting"]
    assert row["baseline"]["strategy"] == "always answer 1"  # the named strategy wins the tie
    assert row["explanation"].startswith('It answers "1" on 100% of attempts')
    assert f"that alone scores {row['baseline']['score']:.3f}" in row["explanation"]
    always_one = next(b for b in row["baselines"] if b["strategy"] == "always answer 1")
    assert always_one["imitation"] == 1.0 and always_one["imitation_k"] == 20
    assert always_one["imitation_ci"][0] > 0.8  # Wilson lower bound at 20/20


def test_format_split_for_tagless_base(audited):
    row = audited[0]["chain_sum"]
    assert row["reward_before"] == 0.0  # strictly, no tags -> nothing
    assert row["lenient_reward_before"] == pytest.approx(17 / 20)
    assert row["format_gain"] == pytest.approx(0.85) and row["substance_gain"] == pytest.approx(0.05)


def test_paired_tests_are_reported(audited):
    row = audited[0]["basic_arithmetic"]
    assert row["accuracy_before"] == 0.15 and row["accuracy_after"] == 0.9
    assert row["accuracy_mcnemar"]["fail_to_pass"] == 15 and row["accuracy_mcnemar"]["p"] < 0.001
    assert row["reward_gain"]["lo"] > 0 and row["p"] < 0.01


def test_too_few_tasks_never_get_a_confident_label(audited):
    row = audited[0]["word_sorting"]
    assert row["n_tasks"] == 3 < MIN_TASKS
    assert "Only 3 tasks" in row["explanation"]


def _ev(**kw):
    base = dict(
        n_tasks=20,
        reward_before=0.2,
        reward_after=0.6,
        gain_lo=0.2,
        gain_hi=0.6,
        lenient_before=0.2,
        lenient_after=0.6,
        strategies=(),
    )
    return Evidence(**{**base, **kw})


def test_baseline_already_matching_is_no_real_gain():
    unsorted = StrategyEvidence("repeat the input words unsorted", 0.58, 0.1, 0.1)
    name, text = label(_ev(strategies=(unsorted,)))
    assert name == "no real gain" and "0.580" in text and "0.600" in text


def test_significant_drop_is_regressed_not_no_change():
    assert label(_ev(reward_after=0.05, gain_lo=-0.25, gain_hi=-0.05))[0] == "regressed"


def test_high_imitation_without_a_rise_is_not_gamed():
    # The base model already answered "1" everywhere: RL did not game anything.
    # Rule 2 needs a rise of >= 25 points; rule 3 still applies: "1" alone scores 0.6, post-RL 0.6.
    one = StrategyEvidence("always answer 1", 0.6, 0.9, 0.9, "1")
    assert label(_ev(strategies=(one,))) == (
        "no real gain",
        '"always answer 1" already scores 0.600; post-RL scores 0.600 (before 0.200).',
    )


def test_partial_format_share_is_skill_and_format():
    name, text = label(_ev(lenient_before=0.4))  # 0.2 of a 0.4 gain = 50% format
    assert name == "skill and format" and "50% of the gain is format" in text


def test_without_a_scorer_the_label_says_what_was_not_checked():
    name, text = label(_ev(lenient_before=None, lenient_after=None))
    assert name == "real skill" and "not checked" in text


def test_trivial_answers_without_a_reward_rise_are_no_real_gain_not_gamed():
    # The demo's word_sorting story: RL taught "repeat the words", the reward even fell.
    unsorted = StrategyEvidence("repeat the input words unsorted", 0.235, 1.0, 0.0)
    name, _ = label(_ev(reward_before=0.318, reward_after=0.235, gain_lo=-0.16, gain_hi=-0.02, strategies=(unsorted,)))
    assert name == "no real gain"
