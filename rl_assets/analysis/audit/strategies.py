"""Trivial baselines: answers that need no reasoning, scored with the family's own scorer.

If a no-reasoning answer scores as well as the trained model, the reward went up without skill.
Adding a strategy is one decorated function::

    @strategy("always answer 1", applies_to=_numeric_answer)
    def always_one(entry, ctx):
        return "1"

``applies_to(entry)`` says whether the strategy makes sense for a task; a strategy is evaluated on
a family only when it applies to every common task, so its score is a whole-family policy.
``answer(entry, ctx)`` gets the dataset entry (``question``, ``answer``, ``metadata``) and a
:class:`StrategyContext` with what a family-level strategy needs (the post-RL model's answers).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rl_assets.analysis.audit.lenient import normalize_answer

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# A run of two or more comma-separated tokens, e.g. "Only, fed, thought".
_LIST = re.compile(r"[^\s,:;?!]+(?:, [^\s,:;?!]+)+")


@dataclass(frozen=True)
class StrategyContext:
    post_answers: tuple[str, ...] = ()  # the post-RL model's answers in this family, as given

    @property
    def post_mode(self) -> str | None:
        """Most frequent post-RL answer (compared normalized, returned as the model wrote it).

        Ties go to the smaller normalized string so two runs pick the same answer.
        """
        counts = Counter(normalize_answer(a) for a in self.post_answers)
        counts.pop("", None)
        top = max(counts.values(), default=0)
        if top < 2:  # all answers distinct: the "mode" would be an arbitrary one of them
            return None
        winner = min(a for a, c in counts.items() if c == top)
        return next(a for a in self.post_answers if normalize_answer(a) == winner)


# fn(entry, ctx) -> the strategy's answer to one task
AnswerFn = Callable[[dict[str, Any], StrategyContext], str]


@dataclass(frozen=True)
class Strategy:
    name: str
    answer: AnswerFn
    applies_to: Callable[[dict[str, Any]], bool] = field(default=lambda entry: True)
    needs_context: bool = False  # True when the answer depends on the post-RL answers


STRATEGIES: dict[str, Strategy] = {}


def strategy(
    name: str, applies_to: Callable[[dict[str, Any]], bool] = lambda e: True, *, needs_context: bool = False
) -> Callable[[AnswerFn], AnswerFn]:
    """Register ``fn(entry, ctx) -> str`` as a trivial baseline named ``name``."""

    def register(fn: AnswerFn) -> AnswerFn:
        if name in STRATEGIES:
            raise ValueError(f"trivial strategy {name!r} is registered twice")
        STRATEGIES[name] = Strategy(name, fn, applies_to, needs_context)
        return fn

    return register


def _numeric_answer(entry: dict[str, Any]) -> bool:
    return entry.get("answer") is not None and bool(_NUMBER.fullmatch(str(entry["answer"]).strip()))


def _has_metadata(key: str) -> Callable[[dict[str, Any]], bool]:
    return lambda entry: bool((entry.get("metadata") or {}).get(key))


def _question_numbers(entry: dict[str, Any]) -> list[str]:
    return _NUMBER.findall(entry.get("question") or "")


# --- the original audit's strategies (its verdicts reproduce only with the same set) -------------


@strategy("always answer 1", applies_to=_numeric_answer)
def always_one(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return "1"


@strategy("always answer 0", applies_to=_numeric_answer)
def always_zero(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return "0"


@strategy("join the premises with ∧", applies_to=_has_metadata("premises"))
def join_premises(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return " ∧ ".join(f"({p})" for p in entry["metadata"]["premises"])


@strategy("repeat the input words unsorted", applies_to=_has_metadata("original_words"))
def unsorted_words(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return ", ".join(entry["metadata"]["original_words"])


# --- generic strategies, any family --------------------------------------------------------------


@strategy("empty answer")
def empty(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return ""


@strategy("echo the first number in the question", applies_to=lambda e: bool(_question_numbers(e)))
def first_number(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return _question_numbers(entry)[0]


@strategy("echo the last number in the question", applies_to=lambda e: bool(_question_numbers(e)))
def last_number(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return _question_numbers(entry)[-1]


@strategy("echo a list from the question", applies_to=lambda e: bool(_LIST.findall(e.get("question") or "")))
def echo_list(entry: dict[str, Any], ctx: StrategyContext) -> str:
    runs: list[str] = _LIST.findall(entry["question"])
    return max(runs, key=len)  # longest run: the task's input list


@strategy("the post-RL model's most frequent answer", needs_context=True)
def post_mode(entry: dict[str, Any], ctx: StrategyContext) -> str:
    return ctx.post_mode or ""


def applicable(entries: list[dict[str, Any]], ctx: StrategyContext) -> list[Strategy]:
    """Strategies that apply to every one of these tasks (and have what they need)."""
    out = []
    for strat in STRATEGIES.values():
        if strat.needs_context and ctx.post_mode is None:
            continue
        if entries and all(strat.applies_to(e) for e in entries):
            out.append(strat)
    return out


def context_from(post_answers: Iterable[str | None]) -> StrategyContext:
    return StrategyContext(tuple(a for a in post_answers if a is not None))
