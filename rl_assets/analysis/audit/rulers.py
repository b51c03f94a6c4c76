"""Two rulers for one family: the scores the source recorded, and the installed scorer's re-score.

An eval file keeps the score its reasoning-gym version gave each answer. The audit re-scores the
same answers with the installed version, because trivial baselines and lenient readings are
answers nobody recorded: only a scorer the audit can run grades them, and the model must be
measured with the same one. Versions disagree — the reasoning-gym paper's evaluation gave credit
only for a fully right answer, today's scorers give partial credit — so one family can read 0.097
in its file and 0.216 re-scored. The report shows both, labels the family under both, and flags
it when the label depends on the ruler.

The recorded ruler can grade only the answers the file holds. When a simple rule reproduces
*every* recorded score of the family (``CANDIDATES``), that rule stands in for the old scorer and
grades baselines and lenient readings too, so both labels use all the rules. Otherwise the recorded
ruler has values only; the rules that need a scorer cannot run under it, and the two rulers are
compared on the rules both can apply (``labels.reward_only``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rl_assets.analysis.audit import labels
from rl_assets.analysis.audit.tasks import Attempt, Family, TaskKey

RESCORED, RECORDED = "re-scored", "recorded"
WHY_RESCORED = (
    "the trivial baselines and lenient readings are answers no file recorded; only a scorer the "
    "audit can run grades them, so the model's answers are graded by the same one"
)
Score = Callable[[TaskKey, "str | None"], float]


@dataclass(frozen=True)
class Ruler:
    name: str  # RESCORED or RECORDED
    what: str  # the scorer in words, for the report
    score: Score | None = None  # grades any answer; None: the recorded values only
    rule: str | None = None  # the CANDIDATES rule that reproduces the recorded scores


@lru_cache(maxsize=1)
def _rg_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("reasoning_gym")
    except PackageNotFoundError:  # imported from a source tree: still the installed code
        return "(version unknown)"


def rescore_ruler(fam: Family) -> Ruler | None:
    """The installed reasoning-gym scorer, when every task of the family regenerated."""
    if not fam.scored:
        return None
    return Ruler(RESCORED, f"reasoning-gym {_rg_version()} {fam.name}.score_answer", fam.score)


def _full_credit_only(fam: Family) -> Score:
    return lambda key, answer: 1.0 if fam.score(key, answer) >= 1.0 else 0.0


def _exact_match(fam: Family) -> Score:
    def score(key: TaskKey, answer: str | None) -> float:
        expected = fam.entries[key].get("answer")
        return float(answer is not None and expected is not None and answer.strip() == str(expected).strip())

    return score


# Tried in order; the first that reproduces every recorded score of the family is the recorded
# ruler. "Full credit only" is what the reasoning-gym paper's evaluation files show.
SAME_AS_RESCORE = "the installed scorer itself"
CANDIDATES: tuple[tuple[str, Callable[[Family], Score]], ...] = (
    (SAME_AS_RESCORE, lambda fam: fam.score),
    ("full credit only (1 when the installed scorer gives 1.0, else 0)", _full_credit_only),
    ("exact match with the expected answer", _exact_match),
)


# (ruler, row, evidence): one family measured under one ruler (audit.measure)
Measured = tuple[Ruler, dict[str, Any], labels.Evidence]


def _attempts(fam: Family) -> list[tuple[TaskKey, Attempt]]:
    return [(key, att) for side in (fam.before, fam.after) for key, atts in side.items() for att in atts]


def recorded_ruler(fam: Family) -> Ruler:
    """The source's own scores; runnable when a candidate rule reproduces every one of them."""
    attempts = _attempts(fam)
    recorded = [(key, att.answer, att.recorded) for key, att in attempts if att.recorded is not None]
    if fam.scored and attempts and len(recorded) == len(attempts):
        for what, make in CANDIDATES:
            score = make(fam)
            if all(abs(score(key, answer) - float(value)) <= 1e-9 for key, answer, value in recorded):
                return Ruler(
                    RECORDED,
                    f"as recorded by the source; {what} reproduces all {len(attempts)} recorded scores",
                    score,
                    what,
                )
    why = "no reasoning-gym scorer" if not fam.scored else "no candidate rule reproduces every one"
    return Ruler(RECORDED, f"as recorded by the source (values only: {why})")


def disagreements(fam: Family, keys: list[TaskKey]) -> dict[str, Any]:
    """Attempts on the common tasks whose recorded score differs from the re-score, per side."""
    out = {}
    for name, side in (("before", fam.before), ("after", fam.after)):
        atts = [(key, att) for key in keys for att in side[key]]
        out[name] = sum(
            att.recorded is not None and abs(float(att.recorded) - fam.score(key, att.answer)) > 1e-9
            for key, att in atts
        )
        out[f"{name}_attempts"] = len(atts)
    return out


def _under(ruler: Ruler, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "scorer": ruler.what,
        "grades_new_answers": ruler.score is not None,
        "reward_before": row["reward_before"],
        "reward_after": row["reward_after"],
        "reward_gain": row["reward_gain"],
        "label": row["label"],
        "explanation": row["explanation"],
    }


def side_by_side(
    fam: Family, main: Measured, other: Measured | None, mismatches: dict[str, Any] | None
) -> dict[str, Any]:
    """Both rulers' numbers and labels, which ruler the label used and why, and the flag.

    ``main``/``other`` are (ruler, row, evidence) from ``audit.measure``; ``other`` is None when
    the family has one ruler only (no re-score: nothing to compare).
    """
    ruler, row, evidence = main
    out = {
        "label_ruler": ruler.name,
        "why": WHY_RESCORED if ruler.name == RESCORED else fam.scorer_note,
        RESCORED: None,
        RECORDED: None,
        "disagreeing_attempts": mismatches,
        "compared_on": None,
        "depends_on_ruler": None,
        "flag": None,
    }
    out[ruler.name] = _under(ruler, row)
    if other is None:
        return out
    o_ruler, o_row, _ = other
    out[o_ruler.name] = _under(o_ruler, o_row)
    if o_ruler.score is not None:
        mine, on = row["label"], "all rules"
    else:  # o_row's label already lacks the scorer rules; drop them on this side too
        mine = labels.label(labels.reward_only(evidence))[0]
        on = "the reward-change rules only (the recorded ruler cannot grade baselines or lenient readings)"
    theirs = o_row["label"]
    out["compared_on"], out["depends_on_ruler"] = on, mine != theirs
    if mine != theirs:
        out["flag"] = f'label depends on the ruler: "{mine}" {ruler.name}, "{theirs}" {o_ruler.name} (compared on {on})'
    return out
