"""A real SkyRL run's in-training eval (tests/fixtures/realdata/skyrl_ctu_agent_run_022o7j60/PROVENANCE.txt):
the ``[Eval Step N] Eval rewards - Avg: x, Success: y`` lines reach val_score at the TRAINING step they
evaluated, and reward integrity judges the run with them.

Every expected value was read by hand from the fixture; the line it comes from is quoted next to it.
The step each round belongs to is also checked against the trainer's own name for it: the
``Dumped eval data ... global_step_K_evals`` line printed right after each round.
"""

import math
import re
from pathlib import Path

from rl_assets.analysis.integrity import reward_integrity
from rl_assets.ingest.skyrl_log import parse_training_logs

RUN = Path(__file__).parents[1] / "fixtures" / "realdata" / "skyrl_ctu_agent_run_022o7j60"


def _row(parsed, step):
    return parsed.steps.set_index("step").loc[step]


def test_eval_rounds_land_at_the_training_step_not_the_eval_step_counter():
    parsed = parse_training_logs(RUN)
    rounds = parsed.steps.loc[parsed.steps["val_score"].notna(), "step"].tolist()
    # 22 "Eval rewards" lines: before training, then after every second step (eval_interval 2) up to 42
    assert rounds == list(range(0, 43, 2))
    # line 12: "[Eval Step 7] Eval rewards - Avg: 0.404, Success: 0.404" -- before "Started: 'step'"
    # (line 20): the eval of the weights before any update, step 0 (line 14: .../global_step_0_evals/...)
    zero = _row(parsed, 0)
    assert zero["val_score"] == 0.404 and zero["eval/instant_success_rate"] == 0.404
    assert math.isnan(zero["reward"])  # no training metric is invented for step 0
    # line 73: "[Eval Step 109] Eval rewards - Avg: 0.381, Success: 0.381", after step 2's Finished: 'step'
    two = _row(parsed, 2)
    assert two["val_score"] == 0.381
    # step 2's own generation line (line 47 "[Step 101] Generation rewards - Avg: 0.438") survives; the
    # eval's per-set line inside Started/Finished: 'eval' (line 77 "[Step 110] ... Avg: 0.040") does not
    assert two["generation/avg_reward"] == 0.438
    # line 1313: "[Eval Step 4109] Eval rewards - Avg: 0.932, Success: 0.932" after step 42
    assert _row(parsed, 42)["val_score"] == 0.932
    # rows: step 0 (the round before training) and training steps 1..43 -- none at the eval counter's 7, 109 ...
    assert parsed.steps["step"].tolist() == list(range(0, 44))


def test_each_round_sits_at_the_step_the_trainer_dumped_it_under():
    """The trainer names each round's folder global_step_K_evals right after printing it: the
    reader, which never reads those lines, must put every round at that K."""
    text = (RUN / "output.log").read_text()
    pairs = re.findall(r"Eval rewards - Avg: ([\d.]+).*?\n.*?\nDumped eval data .*?global_step_(\d+)_evals", text)
    assert len(pairs) == 22
    parsed = parse_training_logs(RUN)
    val = parsed.steps.set_index("step")["val_score"].dropna()
    assert [(f"{v:.3f}", str(s)) for s, v in val.items()] == pairs


def test_the_eval_lines_are_counted_parsed_and_every_line_is_accounted_for():
    parsed = parse_training_logs(RUN)
    led = parsed.accounting["lines"]
    assert led["parsed"]["eval_round"] == 22
    # 7 per-set "Generation rewards" lines inside each of the 22 evals: the printed line is the round, so
    # they are not read again (this excerpt has no Evaluation Progress bar to tell the main set from the
    # Retail Validation one, so all 7 are the printed round's detail)
    assert led["ignored"]["eval_batches_of_printed_round"] == 154
    total = sum(sum(led[k].values()) for k in ("parsed", "malformed", "ignored", "duplicate"))
    assert total == led["read"] == 1324
    assert parsed.alias_sources["val_score"] == {"eval/instant_avg_reward": 22}


def test_integrity_judges_the_run_with_its_eval_series():
    """Before the eval lines were read this run was 'not enough data' (val_score at 0 rounds) although
    the log holds 22 rounds; its reward rose 0.43 -> 0.91 with the eval 0.404 -> 0.932."""
    result = reward_integrity(parse_training_logs(RUN).steps)
    tv = result["signals"]["train_val_divergence"]
    assert tv["status"] == "does not hold" and "0.404 → 0.932" in tv["reason"]
    behaviour = result["signals"]["reward_tracks_behaviour"]
    # the shorter answers explain much of the reward's rise, but the task outcome rose with it
    assert behaviour["status"] == "does not hold" and "val_score 0.404 → 0.932" in behaviour["reason"]
    assert result["verdict"] == "healthy"
