"""terminal-bench-mini eval traces for the base model and each RL checkpoint.

Built-in story (recorded in ground truth): post-RL fails fewer commands and thinks about half as
much, solves more tasks (task-level flips both ways), while code fences, self-corrections and
the number of tool calls stay put. On every flipped task the base and post-RL attempt 0 share
their first k actions and part ways at action k.

"Stay put" holds by construction, not on average: the number of actions and the per-turn code
fence / self-correction draws come from streams keyed by (variant, task, attempt) only, and the
infra-error trial is the same (task, attempt) on every side, so a base trace and the post-RL trace
of the same task and attempt have equal counts of those features (see terminal.conversation).
Timeouts and context-length errors end on an agent turn without mark_task_complete (premature stop).
"""

from __future__ import annotations

from datetime import timedelta

from . import terminal as term
from .constants import ALPHA, BASE, BETA, EVAL_DAY
from .export_rows import Trial
from .rand import rng, suffix

VERBS = ("fix", "parse", "count", "rename", "compress", "sanitize", "merge", "extract", "validate", "rotate")
NOUNS = ("config-files", "git-repo", "csv-report", "log-errors", "cron-job", "ssl-cert", "python-venv", "json-schema")
BASE_STYLE = term.Style(think_words=80, error_p=0.45)
RL_STYLE = term.Style(think_words=38, error_p=0.12)
FLIPS = {ALPHA: (0.25, 0.05), BETA: (0.15, 0.05)}  # share of tasks flipped up / down vs base
ATTEMPTS = 3
TBM_OFFSET = timedelta(hours=2, minutes=30)  # runs after rg-six-families on each eval day


def tasks(seed: int, n: int) -> list[str]:
    names = [f"{v}-{o}" for v in VERBS for o in NOUNS]
    rng(seed, "tbm-tasks").shuffle(names)
    return sorted(names[:n])


def plan(seed: int, names: list[str]) -> dict:
    """Base pass vectors per task, then per RL model which tasks flip and where they diverge."""
    r = rng(seed, "tbm-plan")
    order = names[:]
    r.shuffle(order)
    n = len(names)
    n_pass, n_mixed = round(0.2 * n), round(0.15 * n)
    base = {t: [True] * ATTEMPTS for t in order[:n_pass]}
    for t in order[n_pass : n_pass + n_mixed]:
        v = [r.random() < 0.5 for _ in range(ATTEMPTS)]
        base[t] = v if 0 < sum(v) < ATTEMPTS else [True, False, False]
    for t in order[n_pass + n_mixed :]:
        base[t] = [False] * ATTEMPTS
    out: dict[str, dict[str, dict]] = {BASE: {"vectors": base, "flips": {}}}
    for model, (up_share, down_share) in FLIPS.items():
        rm = rng(seed, "tbm-flips", model)
        fails = sorted(t for t, v in base.items() if not any(v))
        passes = sorted(t for t, v in base.items() if all(v))
        ups = rm.sample(fails, min(len(fails) - 1, max(1, round(up_share * n))))
        downs = rm.sample(passes, min(len(passes), max(1, round(down_share * n))))
        vectors = dict(base)
        flips = {}
        for t in sorted(ups + downs):
            vectors[t] = [t in ups] * ATTEMPTS
            flips[t] = {"direction": "up" if t in ups else "down", "divergence_action_index": rm.randint(1, 4)}
        out[model] = {"vectors": vectors, "flips": flips}
    return out


def _ending(r, passed: bool, clean: bool) -> tuple[str, str]:
    if passed:
        return "complete", "1.0"
    x = r.random()
    if clean or x >= 0.21:
        return "complete", "0.0"
    return "cut", "AgentTimeoutError" if x < 0.15 else "ContextLengthExceededError"


def trials(
    seed: int,
    model: str,
    names: list[str],
    p: dict,
    base_first: dict,
    xss_task: str | None,
    variant: str = "",
    day_offset: timedelta = timedelta(0),
) -> list[Trial]:
    """All trials of one model. `base_first[task]` holds base attempt 0's actions (for divergence)."""
    style = BASE_STYLE if model == BASE else RL_STYLE
    flips = p[model]["flips"]
    infra_task = _infra_task(p, names)
    out = []
    for i, task in enumerate(names):
        for a in range(ATTEMPTS):
            r = rng(seed, "tbm-trial", variant, model, task, a)
            # Side-independent: same length and fence / self-correction draws for base and post-RL.
            shape = rng(seed, "tbm-shape", variant, task, a)
            n_act = rng(seed, "tbm-length", variant, task, a).randint(5, 9)
            if model == BASE and a == 0:
                scout = list(term.SCOUT[:4])
            elif task in flips and a == 0:
                k = flips[task]["divergence_action_index"]
                scout = base_first[task][:k]
                fork = base_first[task][k]
                nxt = fork
                while nxt == fork:  # the first post-RL action that differs from the base run
                    nxt = term.draw_actions(r, style, [], 1)[0]
                scout.append(nxt)
                assert len(scout) <= n_act  # k <= 4 < 5 <= n_act: the fork never lengthens the trace
            else:
                scout = list(term.SCOUT[: r.randint(0, 2)])
            actions = term.draw_actions(r, style, scout, n_act)
            if model == BASE and a == 0 and not variant:
                base_first[task] = actions
            passed = p[model]["vectors"][task][a]
            ending, result = _ending(r, passed, clean=task in flips or (model == BASE and a == 0))
            if task == infra_task and a == ATTEMPTS - 1:
                ending, result = "infra", "DaytonaError"
            conv = term.conversation(r, style, task, actions, ending, shape, xss=(task == xss_task and a == 0))
            if result == "ContextLengthExceededError":
                conv[-2]["content"] += "\n" + "x" * 4000  # a flood of output (last observation) filled the context
            date = EVAL_DAY[model] + TBM_OFFSET + day_offset + timedelta(seconds=97 * (i * ATTEMPTS + a))
            out.append(Trial(task, a, f"{task}__{suffix(r)}", date, result, conv))
    return out


def _infra_task(p: dict, names: list[str]) -> str | None:
    """The task whose last attempt is the infra error, the same on every side: never solved and
    never flipped by any model."""
    return next(
        (t for t in sorted(names) if all(not any(m["vectors"][t]) and t not in m["flips"] for m in p.values())), None
    )


def episode_level_trials(seed: int, model: str, ts: list[Trial]) -> set[str]:
    """Roughly a quarter of the base model's trials are exported with every episode."""
    if model != BASE:
        return set()
    r = rng(seed, "tbm-episodes")
    return {t.trial_name for t in ts if r.random() < 0.25}
