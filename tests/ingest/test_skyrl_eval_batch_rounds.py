"""SkyRL eval rounds from per-batch lines (builds that print no ``Eval rewards`` line; eval_batches.py),
on hand-made logs: the weighted mean, the printed line winning, and each reason a round is not scored.

The line shapes are the real ones of tests/fixtures/realdata/skyrl_eval_batch_rounds; the numbers are
made up so that a weighted and an unweighted mean differ.
"""

from __future__ import annotations

import pytest

from tests.ingest.test_skyrl_eval_rounds import ledger_holds, line, parse, rows, step


def bar(n: int, total: int | None = None) -> str:
    return f"Generating Trajectories: 100%|██████████| {n}/{total or n} [02:00<00:00,  3.00s/it]"


def batch(avg: str) -> str:
    return line(f"Generation rewards - Avg: {avg}, Success rate: {avg}", "generate")


def set_done(k: int) -> str:
    return f"Evaluation Progress: 100%|██████████| {k}/{k} [10:00<00:00, 100.00s/it]"


def eval_without_result(batches: list[tuple[int | None, str]], k: int | None = None) -> list[str]:
    out = [line("Started: 'eval'")]
    for n, avg in batches:
        out += ([bar(n)] if n is not None else []) + [batch(avg)]
    out.append(line("WARNING Failed to log eval reward metrics: no attribute 'total_steps'", "eval"))
    out.append(set_done(k if k is not None else len(batches)))
    # the next eval set of the same eval: never part of the round
    out += [bar(25), batch("0.040"), "Retail Validation Progress: 100%|██████████| 1/1 [01:00<00:00, 60.00s/it]"]
    return out + [line("Finished: 'eval', time cost: 100.00s")]


def test_the_round_is_the_trajectory_weighted_mean_at_the_step_that_last_finished(tmp_path):
    lines = (
        eval_without_result([(64, "0.500"), (16, "0.000")])
        + step(1, "0.300")
        + eval_without_result([(10, "0.200"), (30, "0.600")])
    )
    parsed = parse(tmp_path, lines)
    # (64 * 0.5 + 16 * 0) / 80 = 0.4 (the plain mean of the two lines would be 0.25); (2 + 18) / 40 = 0.5
    assert rows(parsed) == pytest.approx({0: 0.4, 1: 0.5})
    led = parsed.accounting["lines"]
    assert led["parsed"]["eval_round_batches"] == 4
    assert led["ignored"]["inside_eval"] == 2  # the Retail Validation batch of each eval
    assert ledger_holds(parsed)


def test_a_batch_line_without_a_count_leaves_the_round_unscored_and_names_the_line(tmp_path):
    lines = step(1, "0.300") + eval_without_result([(64, "0.500"), (None, "0.000")])
    parsed = parse(tmp_path, lines)
    assert rows(parsed) == {}  # no guessed weight, no unweighted mean
    assert parsed.malformed["by_reason"] == {"eval_round_batch_without_count": 2}
    (example,) = parsed.malformed["examples"]
    # step() is lines 1-5; Started: 'eval' 6, the bar 7, its batch 8, the count-less batch line 9
    assert example.startswith("output.log:9: eval_round_batch_without_count:") and "Avg: 0.000" in example
    assert ledger_holds(parsed)


def test_a_cut_round_is_not_scored(tmp_path):
    """The eval ends (a step starts, or the file ends) before the set's Evaluation Progress bar."""
    cut = [line("Started: 'eval'"), bar(64), batch("0.500"), bar(64), batch("0.700")]
    parsed = parse(tmp_path, step(1, "0.300") + cut + step(2, "0.400") + cut)
    assert rows(parsed) == {}
    assert parsed.malformed["by_reason"] == {"eval_round_cut": 4}
    assert ledger_holds(parsed)


def test_a_batch_count_disagreeing_with_the_sets_progress_bar_is_not_scored(tmp_path):
    parsed = parse(tmp_path, step(1, "0.300") + eval_without_result([(64, "0.500"), (64, "0.700")], k=3))
    assert rows(parsed) == {}
    assert parsed.malformed["by_reason"] == {"eval_round_batches_vs_progress_bar": 2}
    assert ledger_holds(parsed)


def test_a_printed_result_line_wins_over_the_batches(tmp_path):
    both = [
        line("Started: 'eval'"),
        bar(64),
        batch("0.500"),
        bar(16),
        batch("0.000"),
        line("[Eval Step 7] Eval rewards - Avg: 0.410, Success: 0.410", "eval"),
        set_done(2),
        line("Finished: 'eval', time cost: 100.00s"),
    ]
    parsed = parse(tmp_path, step(1, "0.300") + both)
    assert rows(parsed) == {1: 0.410}  # the printed value, not the batch mean 0.4
    led = parsed.accounting["lines"]
    assert led["parsed"]["eval_round"] == 1 and "eval_round_batches" not in led["parsed"]
    assert led["ignored"]["eval_batches_of_printed_round"] == 2
    assert ledger_holds(parsed)


def test_a_training_steps_generation_line_is_never_an_eval_batch(tmp_path):
    parsed = parse(tmp_path, [bar(384)] + step(1, "0.300") + [bar(384)] + step(2, "0.400"))
    assert rows(parsed) == {}
    assert "eval_round_batches" not in parsed.accounting["lines"]["parsed"]
    assert ledger_holds(parsed)
