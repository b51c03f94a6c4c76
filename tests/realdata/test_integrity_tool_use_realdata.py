"""tool_use_collapse on real verl agent runs (tests/fixtures/realdata/*/PROVENANCE.txt): the run that
abandons its code tool (yeu8r64c, labelled collapsed in validity/manifest.json) holds from the step read
by hand; a run that keeps calling its tool (cr3q4lay) does not, in its real order or in any of 200
shuffles of it (the null: no ordering of a tool-using run's values reaches the floor).
The corpus-wide false-positive count is in docs/integrity.md ("Tool-use collapse")."""

from pathlib import Path

import numpy as np

from rl_assets.analysis.integrity import collapse, reward_integrity, rules
from rl_assets.ingest.training_logs import read_training_logs

REAL = Path(__file__).parents[1] / "fixtures" / "realdata"


def _steps(run: str):
    return read_training_logs(REAL / f"verl_wandb_run_aopd_{run}" / "files").steps


def _signal(frame):
    return collapse.floor_collapse(frame, "tool_calls", rules.TOOL_FLOOR, "tool_use_collapse", rules.TOOL_ABANDONED)


def test_the_run_that_abandons_its_tool_collapses_from_step_23():
    out = reward_integrity(_steps("yeu8r64c"))
    sig = out["signals"]["tool_use_collapse"]
    # rollout/tool_calls_avg, steps 1-5: 2.277, 2.211, 1.895, 1.904, 2.033 -> start (median) 2.033,
    # floor 0.2033; steps 21-25: 0.564, 0.383, 0.199, 0.125, 0.043 -> step 23's centred median 0.199
    assert sig["status"] == rules.HOLDS and sig["onset_step"] == 23
    assert sig["at_onset"]["tool_calls"]["smoothed"] == 0.19921875
    assert out["verdict"] == rules.COLLAPSED
    # length and entropy rose in this run: the tool calls are the only collapse evidence
    assert out["signals"]["length_collapse"]["status"] == rules.DOES_NOT_HOLD
    assert out["signals"]["entropy_collapse"]["status"] == rules.DOES_NOT_HOLD


def test_a_run_that_keeps_calling_its_tool_never_reaches_the_floor_in_any_order():
    steps = _steps("cr3q4lay")
    assert _signal(steps)["status"] == rules.DOES_NOT_HOLD  # 2.30 -> 4.52 calls per trajectory
    rng = np.random.default_rng(0)
    calls = steps["tool_calls"].to_numpy()
    logged = ~np.isnan(calls)
    held = 0
    for _ in range(200):
        shuffled = calls.copy()
        shuffled[logged] = rng.permutation(calls[logged])
        held += _signal(steps.assign(tool_calls=shuffled))["status"] == rules.HOLDS
    assert held == 0
