"""Trace rows -> per-family tasks with attempts, and each family's own scorer.

A task is what ``rl_assets.analysis.pairing.pairs.pair_rows`` says it is (rl_assets/values/task_identity.py:
family + normalised question where the rows carry one, else the task id), so the audit pairs the
same tasks as Q1 and the comparison, however each eval file spelled its config. For reasoning-gym
families the dataset entry is regenerated from a config and index that produced the task, and the
family's ``score_answer`` becomes the ruler for everything (model answers, trivial baselines,
lenient readings), so every number in the audit is measured the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rl_assets.analysis.audit.lenient import extract_lenient, last_assistant_message
from rl_assets.analysis.pairing.pairs import Pairing, pair_rows
from rl_assets.values.task_identity import canonical_config, generated_dataset, normalise_question, stored_key

TaskKey = str  # the pairing key (rl_assets/values/task_identity.py)


@dataclass
class Attempt:
    answer: str | None  # what the source recorded as the final answer (strict reading)
    response: str | None  # the full last assistant message (for the lenient reading)
    recorded: float | None  # the reward the source recorded
    conversation: str | None = None  # the trace's messages as JSON (the contrastive rules read its tool calls)


def given_answer(att: Attempt) -> str | None:
    """The answer a reader sees: the recorded one, else the lenient reading of the response."""
    return att.answer if att.answer is not None else extract_lenient(att.response)


@dataclass
class Family:
    name: str
    entries: dict[TaskKey, dict[str, Any]] = field(default_factory=dict)  # task -> dataset entry
    origin: dict[TaskKey, tuple[str, int]] = field(default_factory=dict)  # task -> (config JSON, index) that made it
    shown: dict[TaskKey, str] = field(default_factory=dict)  # task -> a task id a reader recognises
    before: dict[TaskKey, list[Attempt]] = field(default_factory=dict)
    after: dict[TaskKey, list[Attempt]] = field(default_factory=dict)
    scored: bool = False  # True when every task regenerated and the family scorer applies
    scorer_note: str = ""  # why there is no scorer, or where it came from
    _scores: dict[tuple[TaskKey, str | None], float] = field(default_factory=dict, repr=False, compare=False)

    def score(self, key: TaskKey, answer: str | None) -> float:
        """The family's own score for an answer to one task (only when ``scored``). Memoised: the audit asks
        for the same answer under several readings and rulers, and some scorers (sympy's simplification in
        the integration families) take a second per answer."""
        memo = (key, answer)
        if memo not in self._scores:
            entry = self.entries[key]
            self._scores[memo] = float(generated_dataset(self.name, self.origin[key][0]).score_answer(answer, entry))
        return self._scores[memo]

    @property
    def common(self) -> list[TaskKey]:
        """Tasks both sides attempted, in a stable order (the paired tests use only these): by the task
        id a reader knows, so a seeded bootstrap resamples them in the order their files list them."""
        return sorted(set(self.before) & set(self.after), key=lambda k: (self.shown.get(k, k), k))


def task_key(row: dict[str, Any]) -> TaskKey:
    """One row's task, as ``paired_families`` keys it when no task-id normalisation is asked for."""
    return stored_key(row)[0]


@lru_cache(maxsize=65536)
def regenerate(family: str, origin: tuple[str, int]) -> tuple[dict[str, Any] | None, str]:
    """The reasoning-gym entry behind a task, or (None, why not). Cached: generating one can take 0.1 s
    (re-arc), and an audit that runs again on the same tasks (a comparison, injected copies) asks again;
    callers read the entry and never change it."""
    try:
        return generated_dataset(family, origin[0])[origin[1]], ""
    except Exception as exc:  # unknown family, config the installed version rejects, bad index
        return None, f"{type(exc).__name__}: {exc}"


def _family_of(row: dict[str, Any]) -> str:
    return row.get("task_family") or row.get("benchmark") or "unknown"


def build_families(before_rows: Iterable[dict[str, Any]], after_rows: Iterable[dict[str, Any]]) -> dict[str, Family]:
    """``paired_families`` without the pairing report."""
    return paired_families(before_rows, after_rows)[0]


def paired_families(
    before_rows: Iterable[dict[str, Any]], after_rows: Iterable[dict[str, Any]], normalise: Sequence[str] = ()
) -> tuple[dict[str, Family], Pairing]:
    """Group both sides by family and task; attach a scorer wherever one can be regenerated.

    Infra-error rows are dropped (the infrastructure failed, not the model); other errors stay
    and score 0, the platform's ``reward_infra_dropped`` convention. ``normalise``: the task-id
    rules the settings ask for (rl_assets/analysis/pairing/pairs.py).
    """
    sides = [[r for r in rows if not r.get("is_infra_error")] for rows in (before_rows, after_rows)]
    pairing = pair_rows(*sides, normalise=normalise, group_of=_family_of)
    families: dict[str, Family] = {}
    questions: dict[tuple[str, TaskKey], str | None] = {}
    origins: dict[tuple[str, TaskKey], list[tuple[str, int]]] = {}  # every (config, index) seen per task
    for side, rows, keys in (("before", sides[0], pairing.before.keys), ("after", sides[1], pairing.after.keys)):
        for row, key in zip(rows, keys):
            name = _family_of(row)
            fam = families.setdefault(name, Family(name))
            getattr(fam, side).setdefault(key, []).append(
                Attempt(row.get("answer"), _response(row), row.get("reward"), row.get("conversation"))
            )
            questions.setdefault((name, key), row.get("question"))
            fam.shown.setdefault(key, str(row.get("task_id")))
            if row.get("task_config") and row.get("task_index") is not None:
                seen = origins.setdefault((name, key), [])
                if (origin := (canonical_config(row["task_config"]), int(row["task_index"]))) not in seen:
                    seen.append(origin)
            if key not in fam.entries:  # pseudo entry until (unless) the real one is regenerated
                fam.entries[key] = {
                    "question": row.get("question") or "",
                    "answer": row.get("expected_answer"),
                    "metadata": {},
                }
    for fam in families.values():
        _attach_scorer(fam, questions, origins)
    return families, pairing


def _response(row: dict[str, Any]) -> str | None:
    return last_assistant_message(row.get("conversation")) or row.get("answer")


def _attach_scorer(
    fam: Family,
    questions: dict[tuple[str, TaskKey], str | None],
    origins: dict[tuple[str, TaskKey], list[tuple[str, int]]],
) -> None:
    """Use the family scorer only if every task regenerates to the very question in the traces,
    from one of the (config, index) pairs its rows carry (the two files may spell them apart).

    A different reasoning-gym version can generate different tasks from the same seed; scoring
    against those would be silently wrong, so the family falls back to the recorded rewards.
    """
    regenerated: dict[TaskKey, dict[str, Any]] = {}
    for key in fam.entries:
        entry: dict[str, Any] | None = None
        seen, why = questions.get((fam.name, key)), "traces carry no generator config/index"
        for origin in origins.get((fam.name, key), []):
            entry, why = regenerate(fam.name, origin)
            if entry is not None and seen and normalise_question(seen) != normalise_question(entry["question"]):
                entry, why = None, "regenerated question differs from the traces (reasoning-gym version?)"
            if entry is not None:
                fam.origin[key] = origin
                break
        if entry is None:
            fam.scorer_note = f"no scorer: {why}; using recorded rewards"
            return
        regenerated[key] = entry
    fam.entries.update(regenerated)
    fam.scored = True
    fam.scorer_note = f"reasoning-gym {fam.name}.score_answer on regenerated entries"
