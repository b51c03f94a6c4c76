"""rl-alpha's RL rollout-trace dataset (docs/formats.md): one row per training trial.

Dates follow the training-log timeline (each rollout starts inside its step's generate phase).
The built-in attribution: the chance of a failing command falls over the run, and a trial's
pass chance falls with its own error rate, so the reward rise is carried by fewer tool errors.
Thinking shrinks too; code fences, self-corrections and tool calls stay constant by construction:
the number of actions and the per-turn fence / self-correction draws of the j-th rollout of a step
come from a stream keyed by j only, so every step has the same counts of those features (and each
quarter of the run, 5 whole steps of the 20, has the same totals).
"""

from __future__ import annotations

from datetime import timedelta

from . import terminal as term
from .export_rows import Trial
from .log_common import Step
from .rand import rng, suffix

VERBS = ("install", "debug", "configure", "schedule", "backup", "monitor", "patch", "migrate")
NOUNS = ("nginx-site", "postgres-db", "docker-image", "systemd-unit", "ssh-keys", "disk-quota")
TRAIN_TASKS = tuple(f"{v}-{o}" for v in VERBS for o in NOUNS)  # disjoint from the eval tasks


def style_at(frac: float) -> term.Style:
    return term.Style(think_words=80 - 42 * frac, error_p=0.45 - 0.33 * frac)


def pass_chance(error_rate: float) -> float:
    return min(max(0.72 - 1.3 * error_rate, 0.03), 0.95)


def trials(seed: int, steps: list[Step], per_step: int) -> list[Trial]:
    t0, t1 = steps[0].start, steps[-1].end
    span = (t1 - t0).total_seconds()
    out = []
    for st in steps:
        for j in range(per_step):
            r = rng(seed, "rollout", st.step, j)
            date = st.start + timedelta(seconds=r.uniform(0, st.m["timing/generate"]))
            frac = (date - t0).total_seconds() / span
            style = style_at(frac)
            task = r.choice(TRAIN_TASKS)
            shape = rng(seed, "rollout-shape", j)  # independent of the step: see the module docstring
            n_act = rng(seed, "rollout-length", j).randint(5, 9)
            actions = term.draw_actions(r, style, list(term.SCOUT[: r.randint(0, 2)]), n_act)
            err_rate = sum(out_ in dict(term.ERR).values() for _, out_ in actions) / len(actions)
            if r.random() < pass_chance(err_rate):
                ending, result = "complete", "1.0"
            elif r.random() < 0.1:
                ending, result = "cut", "AgentTimeoutError"
            else:
                ending, result = "complete", "0.0"
            conv = term.conversation(r, style, task, actions, ending, shape)
            out.append(Trial(task, j, f"{task}__{suffix(r)}", date, result, conv))
    out.sort(key=lambda t: (t.date, t.trial_name))
    return out
