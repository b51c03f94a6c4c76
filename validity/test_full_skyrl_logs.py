"""The SkyRL eval-round reader on the FULL logs of the pre-registered validity corpus (validity/manifest.json).

Run by `make validity` after scripts/validity_fetch.py has re-created the corpus (the logs are not in this
repository, so `make test` does not collect this file; a missing log fails here, it is never skipped).
The format-only excerpts of the same runs are tested in make test
(tests/realdata/test_skyrl_eval_batch_rounds_realdata.py).
"""

from pathlib import Path

import pytest

from rl_assets.ingest.skyrl_log.parser import parse_lines

# Where scripts/validity_fetch.py re-creates the corpus (its default: <repo>/.rldelta/validity/data).
CORPUS = Path(__file__).parents[1] / ".rldelta" / "validity" / "data" / "mert-cemri+CTU-Agent-v0"
FULL = {
    "022o7j60": "24f09f18d077d315efba2fd17e76729bcbcd6eac/training/wandb/run-20250804_235201-022o7j60/files/output.log",
    "qz54zcko": "24f09f18d077d315efba2fd17e76729bcbcd6eac/training/wandb/run-20250807_064952-qz54zcko/files/output.log",
    "0i3x0z3y": "387ff9614e52afad691c5a34cb5d7106a23d39c3/training/wandb/run-20250806_214310-0i3x0z3y/files/output.log",
    "86qwwa59": "24f09f18d077d315efba2fd17e76729bcbcd6eac/training/wandb/run-20250805_210753-86qwwa59/files/output.log",
}


def _full(run: str) -> list[str]:
    path = CORPUS / FULL[run]
    if not path.is_file():
        pytest.fail(f"{path} absent: run scripts/validity_fetch.py (make validity does) to re-create the corpus")
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def test_on_the_full_022o7j60_log_every_batch_mean_agrees_with_its_printed_round():
    lines = _full("022o7j60")
    printed = parse_lines("output.log", lines).eval_rounds
    from_batches = parse_lines("output.log", [x for x in lines if "] Eval rewards - " not in x])
    assert sorted(printed.row_of) == sorted(from_batches.eval_rounds.row_of) == list(range(0, 43, 2))
    for step in printed.row_of:
        for key in ("eval/instant_avg_reward", "eval/instant_success_rate"):
            # printed with 3 decimals (half-unit 0.0005) from batches printed with 3 decimals (0.0005)
            assert abs(printed.get(step, key) - from_batches.eval_rounds.get(step, key)) <= 0.001 + 1e-12
    assert from_batches.counts.get("malformed", 0) == 0


@pytest.mark.parametrize("run, rounds", [("qz54zcko", 7), ("0i3x0z3y", 5), ("86qwwa59", 14)])
def test_the_full_logs_without_a_result_line_have_every_round_scored(run, rounds):
    res = parse_lines("output.log", _full(run))
    # one "Failed to log eval reward metrics" warning per eval this build ran
    assert len(res.eval_rounds.row_of) == rounds == sum("Failed to log eval reward metrics" in x for x in _full(run))
    assert res.counts.get("malformed", 0) == 0
