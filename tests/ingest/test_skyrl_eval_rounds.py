"""SkyRL's in-training eval result line (``[Eval Step N] Eval rewards - Avg: x, Success: y``, the CTU
fork) on hand-made logs: where each round lands, what a cut line becomes, and the ledger.

The line shapes are the real ones of tests/fixtures/realdata/skyrl_ctu_agent_run_022o7j60; the
numbers are made up so that each placement rule gives a different answer.
"""

from __future__ import annotations

import math

from rl_assets.ingest.skyrl_log import parse_training_logs

PREFIX = "2025-08-05 00:{:02d}:{:02d}.000 | INFO     | skyrl_train.trainer:{}:200 - "
_clock = iter(range(10_000))


def line(msg: str, where: str = "train") -> str:
    t = next(_clock)
    return PREFIX.format(t // 60 % 60, t % 60, where) + msg


def eval_block(counter: int, avg: str, success: str | None = None) -> list[str]:
    """An eval as the fork prints it: per-set generation lines, the result, the timer."""
    return [
        line("Started: 'eval'"),
        line(f"[Step {counter - 1}] Generation rewards - Avg: 0.040, Success rate: 0.040", "generate"),
        line(f"[Eval Step {counter}] Eval rewards - Avg: {avg}, Success: {success or avg}", "eval"),
        line("Finished: 'eval', time cost: 100.00s"),
    ]


def step(n: int, reward: str) -> list[str]:
    return [
        line("Started: 'step'"),
        line(f"[Step {n * 100 + 1}] Generation rewards - Avg: {reward}, Success rate: {reward}", "generate"),
        line(f"avg_raw_rewards: {reward}, avg_response_length: 600.0", "compute_advantages_and_returns"),
        line("Finished: 'step', time cost: 900.00s"),
        line("{'policy_loss': 0.001, 'policy_entropy': 1.2, 'policy_kl': 0.002}"),
    ]


def parse(tmp_path, lines: list[str], name: str = "output.log"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return parse_training_logs(path)


def rows(parsed) -> dict[int, float]:
    return {int(s): v for s, v in parsed.steps.set_index("step")["val_score"].items() if not math.isnan(v)}


def ledger_holds(parsed) -> bool:
    led = parsed.accounting["lines"]
    return sum(sum(led[k].values()) for k in ("parsed", "malformed", "ignored", "duplicate")) == led["read"]


def test_eval_before_step_one_is_step_zero_and_between_steps_is_the_step_just_finished(tmp_path):
    lines = eval_block(7, "0.250") + step(1, "0.300") + eval_block(109, "0.350", "0.400") + step(2, "0.500")
    parsed = parse(tmp_path, lines)
    assert rows(parsed) == {0: 0.25, 1: 0.35}
    table = parsed.steps.set_index("step")
    assert table.loc[1, "eval/instant_success_rate"] == 0.4  # Success kept under its own name
    assert math.isnan(table.loc[0, "reward"]) and table.loc[1, "reward"] == 0.3
    # the eval's per-set generation line never overwrites the step's own
    assert table.loc[1, "generation/avg_reward"] == 0.3
    assert math.isnan(table.loc[2, "val_score"])
    led = parsed.accounting["lines"]
    assert (
        led["parsed"]["eval_round"] == 2
        and led["ignored"]["eval_batches_of_printed_round"] == 2
        and ledger_holds(parsed)
    )


def test_eval_after_the_step_was_logged_is_still_that_steps_weights(tmp_path):
    lines = step(1, "0.300") + [line("[Step 1] Logged 9 metrics")] + eval_block(109, "0.350") + step(2, "0.5")
    assert rows(parse(tmp_path, lines)) == {1: 0.35}


def test_an_eval_printed_inside_an_open_step_is_that_steps(tmp_path):
    s = step(3, "0.300")
    lines = s[:3] + eval_block(309, "0.610") + s[3:]
    assert rows(parse(tmp_path, lines)) == {1: 0.61}


def test_a_cut_eval_line_is_a_skip_naming_file_and_line(tmp_path):
    lines = step(1, "0.300") + eval_block(109, "0.381") + step(2, "0.4") + eval_block(309, "0.395")
    cut = lines.index(next(x for x in lines if "[Eval Step 309]" in x))
    lines[cut] = lines[cut][: lines[cut].index("Success: ") + len("Success: 0.3")]  # cut mid-number
    parsed = parse(tmp_path, lines, "rl_7.out")
    assert rows(parsed) == {1: 0.381}  # the cut round is not read as 0.3, nor as anything
    assert parsed.malformed["by_reason"] == {"eval_round_line": 1}
    (example,) = parsed.malformed["examples"]
    assert example.startswith(f"rl_7.out:{cut + 1}: eval_round_line: ")
    assert parsed.accounting["lines"]["parsed"]["eval_round"] == 1 and ledger_holds(parsed)


def test_a_resumed_job_re_evaluating_its_checkpoint_keeps_the_steps_training_row(tmp_path):
    lines = (
        step(1, "0.300")
        + step(2, "0.400")
        + eval_block(109, "0.350")
        + [line("Resumed training from global_step 2")]
        + eval_block(7, "0.360")  # the resumed job's eval before its first step: the step-2 weights again
        + step(3, "0.500")
    )
    parsed = parse(tmp_path, lines)
    assert rows(parsed) == {2: 0.36}  # newest round of the same weights wins
    table = parsed.steps.set_index("step")
    assert table.loc[2, "reward"] == 0.4 and table.loc[2, "policy_loss"] == 0.001  # not replaced by the round
    assert list(table.index) == [1, 2, 3]
    led = parsed.accounting["lines"]
    assert led["duplicate"] == {"eval_round": 1} and led["parsed"]["eval_round"] == 1 and ledger_holds(parsed)


def test_a_restart_in_a_new_file_re_evaluating_keeps_the_earlier_files_step(tmp_path):
    first = step(1, "0.300") + step(2, "0.400") + eval_block(109, "0.350")
    (tmp_path / "rl_1.out").write_text("\n".join(first) + "\n")
    second = [line("Resumed training from global_step 2")] + eval_block(7, "0.370") + step(3, "0.5")
    (tmp_path / "rl_2.out").write_text("\n".join(second) + "\n")
    parsed = parse_training_logs(tmp_path)
    assert rows(parsed) == {2: 0.37}
    assert parsed.steps.set_index("step").loc[2, "reward"] == 0.4 and ledger_holds(parsed)


def test_a_file_with_an_eval_and_no_training_step_gives_no_row(tmp_path):
    parsed = parse(tmp_path, eval_block(7, "0.250"))
    assert parsed.steps.empty  # a run that never trained has no step table, not a lone step-0 row
    led = parsed.accounting["lines"]
    # the timers and the round: what would have been parsed is a skip of its own reason
    assert "eval_round" not in led["parsed"] and led["ignored"]["no_training_step_in_file"] == 3
    assert ledger_holds(parsed)
