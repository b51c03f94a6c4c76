"""The eval toolkit's own numbers beside rldelta's: the independent record an eval file carries.

Qwen2.5-Math writes ``<file>_metrics.json`` (``acc`` per benchmark), lm-evaluation-harness
``results_<time>.json`` (``results.<task>["<metric>,<filter>"]``). Ingest tallies the rows it
wrote per task family (= benchmark) and the adapter compares the two: an accuracy that differs
means rows were lost or read wrongly, and the ``matches_toolkit_metrics`` check fails on it.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from rl_assets.values.answers import no_answer

from .plan import digest


@dataclass
class FamilyTally:
    attempts: int = 0
    scored: int = 0
    reward_sum: float = 0.0
    first_scored: int = 0
    first_sum: float = 0.0
    task_digests: array = field(default_factory=lambda: array("Q"))  # 8 bytes a row, not a set of strings
    no_answer: int = 0

    @property
    def n_tasks(self) -> int:
        """Distinct tasks written (counted once at the end: memory stays 8 bytes per row)."""
        import numpy as np

        return int(np.unique(np.frombuffer(self.task_digests, dtype=np.uint64)).size) if self.task_digests else 0


class Tally:
    """Per task family, what ingest wrote: attempts, scored attempts, reward sums (all attempts and
    attempt 0 only), distinct tasks and attempts without an extractable answer."""

    def __init__(self) -> None:
        self.families: dict[str, FamilyTally] = {}

    def add(self, row: dict) -> None:
        fam = self.families.setdefault(str(row.get("task_family") or ""), FamilyTally())
        fam.attempts += 1
        fam.task_digests.append(digest(str(row.get("task_id"))))
        fam.no_answer += no_answer(row.get("answer"))
        reward = row.get("reward")
        if reward is not None:
            fam.scored += 1
            fam.reward_sum += reward
            if not row.get("attempt"):
                fam.first_scored += 1
                fam.first_sum += reward


def agreement_row(family: str, metric: str, toolkit, ours, *, tolerance: float, note: str = "") -> dict:
    """One line of the comparison: agrees when both are numbers within ``tolerance``; a
    toolkit value that is not comparable (no number) agrees by definition and says why."""
    comparable = isinstance(toolkit, (int, float)) and not isinstance(toolkit, bool) and ours is not None
    agrees = (abs(float(toolkit) - float(ours)) <= tolerance + 1e-9) if comparable else True
    return {
        "family": family,
        "metric": metric,
        "toolkit": toolkit,
        "rldelta": ours,
        "agrees": agrees,
        "compared": comparable,
        "note": note,
    }
