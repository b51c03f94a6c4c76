"""rg-tool-use: reasoning-gym tasks solved with scratch scripts, for the rl-gamma run lineage.

Each trial: the question, 1-3 agent turns that run a scratch script through `bash_command`
(Terminus-2 shapes from demo/terminal.py), then a final answer. The lineage story (ground truth
in demo/lineage_job.py) is planted per *stage* (0 = base model, 1..3 = the job's checkpoints in
step order) and nothing else moves, by construction:

- Every draw that shapes a trace (number of script runs, think words, which runs would fail at
  which error probability, which attempts are right or tagged) comes from streams keyed by
  (task, attempt) only, so the traces of one task attempt differ across stages only where planted.
- Tool errors: run j fails when its side-independent draw u_j < TOOL_ERROR_P[stage]; the
  probabilities fall stage by stage, so the failing runs are nested (a run that succeeds at one
  checkpoint succeeds at every later one): a gradual fall, trace by trace.
- Format fix (chain_sum): the answer carries <answer> tags on TAG_SHARE[stage] of attempts (an
  exact, nested share); untagged answers use `(answer)x(/answer)`, the same number of tokens
  (and words), so the fix changes the score and nothing a feature counts.
- Gaming (letter_counting): from GAMED_FROM on, the answer is "1" whatever the question.
- Every answer is a number of the right answer's sign (so of the same token count).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from reasoning_gym.utils import extract_answer

from . import terminal as term
from .export_rows import Trial
from .rand import rng, suffix
from .reasoning import ATTEMPTS, exact_mask, family_dataset, task_fields

FAMILIES = ("chain_sum", "letter_counting", "leg_counting")
TOOL_ERROR_P = (0.5, 0.36, 0.22, 0.08)  # per stage: base, checkpoint 1, 2, 3
TAG_SHARE = {"chain_sum": (0.2, 0.97, 0.97, 0.97)}  # other families: always tagged
P_RIGHT = {"chain_sum": 0.9, "letter_counting": 0.2, "leg_counting": 0.3}
GAMED_FROM = 2  # letter_counting answers "1" from the second checkpoint on
# chain_sum keeps one right/wrong pattern on every stage (its change is format only); the other
# families redraw which attempts are right per stage, with the same exact count.
SHARED_RIGHTS = frozenset({"chain_sum"})
SCRATCH_OK = term.OK[2][1]  # "check passed: 12 records processed"
SCRATCH_ERRORS = (term.ERR[2][1], term.ERR[5][1])  # Python tracebacks


def _wrong(r, ds, entry: dict) -> str:
    """A wrong number with the right answer's sign (never 0 unless the answer is positive) scoring 0."""
    right = int(entry["answer"])
    sign = -1 if right < 0 else 1
    for _ in range(50):
        cand = right + r.choice([-1, 1]) * r.randint(1, 9)
        if cand * sign > 0 and ds.score_answer(str(cand), entry) == 0.0:
            return str(cand)
    return str(sign * (abs(right) + 11))


def final_answer(think: str, answer: str, tagged: bool) -> str:
    tail = f"<answer>{answer}</answer>" if tagged else f"(answer){answer}(/answer)"
    return f"<think>{think}</think>\nWorking it out, the answer is {answer}.\n{tail}"


def conversation(
    seed: int, error_p: float, task: str, attempt: int, question: str, answer: str, tagged: bool
) -> list[dict]:
    """One trial; a script run fails when its side-independent draw is below `error_p`."""
    shape = rng(seed, "gamma-shape", task, attempt)  # side-independent: see the module docstring
    runs = shape.randint(1, 3)
    plan = [(shape.random(), shape.choice(SCRATCH_ERRORS), max(6, round(shape.gauss(40, 8)))) for _ in range(runs)]
    msgs = [{"role": "user", "content": question}]
    for j, (u, error, words) in enumerate(plan):
        keys = f"python3 scratch_{j}.py\n"
        call = term.tool_call("bash_command", {"keystrokes": keys, "duration": 0.1})
        msgs.append(
            {
                "role": "assistant",
                "content": f"<think>{term.think_text(shape, words)}</think>\n"
                f"Analysis: I will check this step with a scratch script.\n{call}",
            }
        )
        msgs.append({"role": "user", "content": term.observation(keys, error if u < error_p else SCRATCH_OK)})
    msgs.append({"role": "assistant", "content": final_answer(term.think_text(shape, 24), answer, tagged)})
    return msgs


def trials(seed: int, model: str, stage: int, n: int, day: datetime) -> list[Trial]:
    """Every trial of one model (stage 0 = the base) on rg-tool-use, n tasks per family."""
    out: list[Trial] = []
    for family in FAMILIES:
        ds, config = family_dataset(seed, family, n)
        count = n * ATTEMPTS
        key = ("gamma-right", family) if family in SHARED_RIGHTS else ("gamma-right", family, stage)
        rights = exact_mask(rng(seed, *key), count, P_RIGHT[family])
        # One stream for every stage: the same permutation, so tag masks are nested (see docstring).
        tags = exact_mask(rng(seed, "gamma-tags", family), count, TAG_SHARE.get(family, (1.0,) * 4)[stage])
        for idx in range(n):
            e = ds[idx]
            for a in range(ATTEMPTS):
                j = idx * ATTEMPTS + a
                r = rng(seed, "gamma-wrong", family, idx, a, stage)
                if family == "letter_counting" and stage >= GAMED_FROM:
                    answer = "1"
                else:
                    answer = e["answer"] if rights[j] else _wrong(r, ds, e)
                task = f"{family}/{idx}"
                conv = conversation(seed, TOOL_ERROR_P[stage], task, a, e["question"], answer, tags[j])
                given = extract_answer(conv[-1]["content"])  # None when untagged, as reasoning-gym reads it
                score = float(ds.score_answer(given, e))
                extra = task_fields(family, config, idx, e, given)
                date = day + timedelta(seconds=13 * len(out))
                out.append(Trial(task, a, f"{family}-{idx}__{suffix(r)}", date, str(score), conv, extra))
    return out
