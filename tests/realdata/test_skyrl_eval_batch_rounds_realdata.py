"""SkyRL eval rounds read from per-batch lines (tests/fixtures/realdata/skyrl_eval_batch_rounds/PROVENANCE.txt).

qz54zcko's build prints no ``Eval rewards`` line, only a tqdm bar and a ``Generation rewards`` line per
eval batch; 022o7j60's prints both, which checks the weighted mean against the trainer's own result.
Every expected value below is worked out by hand from the lines quoted next to it.
"""

import math
from pathlib import Path

import pytest

from rl_assets.ingest.skyrl_log import parse_training_logs
from rl_assets.ingest.skyrl_log.parser import parse_lines

HERE = Path(__file__).parents[1] / "fixtures" / "realdata" / "skyrl_eval_batch_rounds"
QZ, RUN_022 = HERE / "qz54zcko_two_evals.log", HERE / "022o7j60_two_evals.log"


def _val(parsed) -> dict[int, float]:
    val = parsed.steps.set_index("step")["val_score"].dropna()
    return {int(s): float(v) for s, v in val.items()}


def _ledger_holds(parsed) -> None:
    led = parsed.accounting["lines"]
    assert sum(sum(led[k].values()) for k in ("parsed", "malformed", "ignored", "duplicate")) == led["read"]


def test_a_build_without_a_result_line_gets_its_rounds_from_the_batches():
    parsed = parse_training_logs(QZ)
    # round 1 (lines 7-44, after "Resumed training from global_step 10"): ten 32-trajectory bars with
    # Avg 0.469 0.375 0.406 0.469 0.531 0.344 0.438 0.438 0.500 0.375, one 19/19 bar with Avg 0.368,
    # then "Evaluation Progress: 100%| 11/11": (32 * 4.345 + 19 * 0.368) / 339
    first = (32 * (0.469 + 0.375 + 0.406 + 0.469 + 0.531 + 0.344 + 0.438 + 0.438 + 0.500 + 0.375) + 19 * 0.368) / 339
    val = _val(parsed)
    # rounds at the trainer's own dump folders: global_step_10_evals and global_step_15_evals
    assert sorted(val) == [10, 15]
    assert val[10] == pytest.approx(first, abs=1e-12) and f"{val[10]:.4f}" == "0.4308"
    led = parsed.accounting["lines"]
    assert led["parsed"]["eval_round_batches"] == 22  # 11 batches in each round
    # the Retail Validation (1 batch) and Retail/Airline Test (4 + 2) sets after each Evaluation
    # Progress bar are other eval sets: 7 lines a round stay the eval's own
    assert led["ignored"]["inside_eval"] == 14
    assert parsed.alias_sources["val_score"] == {"eval/instant_avg_reward": 2}
    _ledger_holds(parsed)


def test_where_both_are_printed_the_result_line_wins_and_the_batch_mean_agrees():
    parsed = parse_training_logs(RUN_022)
    # "[Eval Step 7] Eval rewards - Avg: 0.404" and "[Eval Step 109] ... Avg: 0.381": the printed values
    assert _val(parsed) == {0: 0.404, 2: 0.381}
    led = parsed.accounting["lines"]
    assert led["parsed"]["eval_round"] == 2 and "eval_round_batches" not in led["parsed"]
    assert led["ignored"]["eval_batches_of_printed_round"] == 12  # 6 batches a round, read once
    _ledger_holds(parsed)
    # the same lines without the result lines: the batch mean stands in, at the same steps, within the
    # printed half-unit (0.0005) plus the batches' own half-unit (0.0005)
    lines = [x for x in RUN_022.read_text().splitlines() if "] Eval rewards - " not in x]
    res = parse_lines("output.log", lines)
    from_batches = {s: res.eval_rounds.get(s, "eval/instant_avg_reward") for s in res.eval_rounds.row_of}
    assert sorted(from_batches) == [0, 2]
    # round 0: 5 x 64/64 bars (0.438 0.312 0.438 0.438 0.422) and a 19/19 bar (0.316): 137.076 / 339
    assert from_batches[0] == pytest.approx((64 * (0.438 + 0.312 + 0.438 + 0.438 + 0.422) + 19 * 0.316) / 339)
    for step, printed in {0: 0.404, 2: 0.381}.items():
        assert abs(from_batches[step] - printed) <= 0.001 + 1e-12
    assert not math.isnan(from_batches[2])
