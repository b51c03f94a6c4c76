"""rl-gamma's RL rollouts: rg-tool-use trials during training, one set per training step.

They let the run lineage say in which training-step window behaviour moved (docs/lineage.md,
"Aligned with Q2"). Every step replays the same rollout slots — the same tasks, attempts and
side-independent shape draws (demo/lineage_evals.py) — so, by construction, only what is planted
moves between steps:

- tool errors fall gradually: a script run fails when its fixed draw is below the failure
  probability, interpolated over the steps between the evaluated stages (base = step 0: 0.5,
  5: 0.36, 10: 0.22, 20: 0.08), so failing runs are nested step after step;
- letter_counting answers "1" to everything from GAMED_STEP on, between the checkpoint at step 5
  (still "no real gain") and the one at step 10 ("gamed"): its imitation share jumps there;
- chain_sum answers are tagged from the first step on (the format fix precedes checkpoint 5).
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
from reasoning_gym.utils import extract_answer

from .export_rows import Trial
from .lineage_evals import FAMILIES, P_RIGHT, TOOL_ERROR_P, _wrong, conversation
from .log_common import Step
from .rand import rng, suffix
from .reasoning import exact_mask, family_dataset, task_fields

GAMED_STEP = 8
STAGE_STEPS = (0, 5, 10, 20)  # the steps at which TOOL_ERROR_P holds: the base and the three checkpoints


def error_p(step: int) -> float:
    return float(np.interp(step, STAGE_STEPS, TOOL_ERROR_P))


def trials(seed: int, steps: list[Step], per_family: int) -> list[Trial]:
    """per_family rollouts of each family at every training step, dated inside the step's generate phase."""
    out = []
    for family in FAMILIES:
        ds, config = family_dataset(seed, family, per_family)
        rights = exact_mask(rng(seed, "gamma-rollout-right", family), per_family, P_RIGHT[family])
        for idx in range(per_family):
            e, task = ds[idx], f"{family}/{idx}"
            wrong = _wrong(rng(seed, "gamma-rollout-wrong", family, idx), ds, e)
            for st in steps:
                gamed = family == "letter_counting" and st.step >= GAMED_STEP
                answer = "1" if gamed else e["answer"] if rights[idx] else wrong
                conv = conversation(seed, error_p(st.step), task, 0, e["question"], answer, True)
                given = extract_answer(conv[-1]["content"])
                r = rng(seed, "gamma-rollout", family, idx, st.step)
                date = st.start + timedelta(seconds=r.uniform(0, st.m["timing/generate"]))
                extra = task_fields(family, config, idx, e, given)
                out.append(
                    Trial(
                        task,
                        0,
                        f"{family}-{idx}__{suffix(r)}",
                        date,
                        str(float(ds.score_answer(given, e))),
                        conv,
                        extra,
                    )
                )
    out.sort(key=lambda t: (t.date, t.trial_name))
    return out


def truth(ts: list[Trial], features: tuple[str, ...]) -> dict:
    """What the lineage must find in these rollouts (checked by demo/lineage_check.py)."""
    moved = {"tool_errors": "decrease", "tool_error_rate": "decrease", "imitation:letter_counting": "increase"}
    return {
        "rows": len(ts),
        "gamed_from_step": GAMED_STEP,
        "trends": {**{f: "unchanged" for f in features}, **moved},
        "tool_error_probability_by_step": {s: round(error_p(s), 4) for s in range(0, STAGE_STEPS[-1] + 1)},
    }
