"""An in-training eval round read from its per-batch lines, for SkyRL builds that print no result line.

Some CTU-Agent builds (runs qz54zcko, 0i3x0z3y, 86qwwa59) log no ``[Eval Step N] Eval rewards`` line:
``Failed to log eval reward metrics`` replaces it. Each eval batch still prints a tqdm bar
(``Generating Trajectories: 100%|...| 32/32 [...]``) and then ``Generation rewards - Avg: a, Success
rate: s`` for that batch; the eval set's own bar (``Evaluation Progress: ... K/K``) closes the set. The
round's score is the batches' mean weighted by each batch's trajectory count (the bar's total): on
022o7j60, which prints both, that gives 0.4044 for its printed 0.404. What follows the Evaluation
Progress bar (Retail Validation / Test sets) is another eval set, not the round.

A weight is never guessed: a batch line without a bar before it, or a batch count that disagrees with
the Evaluation Progress total, leaves the round unscored (the parser counts its lines as a named skip).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# "Generating Trajectories:  98%|█████████▊| 63/64 [02:48<00:01,  wandb: WARNING ..." -- a frame cut by
# another writer still names the batch's total, which is the batch's trajectory count
BATCH_BAR_RE = re.compile(r"Generating Trajectories:\s*\d+%\|[^|]*\|\s*\d+/(\d+)\s*\[")
SET_BAR_RE = re.compile(r"^Evaluation Progress:\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)\s*\[")


@dataclass
class Batch:
    trajectories: int | None  # the bar's total; None when no bar came before the batch's line
    avg: float
    success: float
    lineno: int
    line: str


@dataclass
class EvalBatchRound:
    """The batches of the eval set being read; ``bar`` is the last batch bar's total not yet used."""

    batches: list[Batch] = field(default_factory=list)
    bar: int | None = None
    closed: bool = False  # the Evaluation Progress bar was seen: later batches are other eval sets

    def see_bar(self, msg: str) -> bool:
        m = BATCH_BAR_RE.search(msg)
        if m and not self.closed:
            self.bar = int(m.group(1))
        return m is not None

    def add(self, avg: float, success: float, lineno: int, line: str) -> None:
        self.batches.append(Batch(self.bar, avg, success, lineno, line))
        self.bar = None

    def score(self, set_total: int | None, no_total: str) -> tuple[dict[str, float] | None, str, Batch | None]:
        """(weighted means, "", None) or (None, why it is not scored, the batch line to name);
        ``no_total`` is the reason to give when the set's own bar gave no total (cut or unreadable)."""
        missing = next((b for b in self.batches if b.trajectories is None), None)
        if missing is not None:
            return None, "eval_round_batch_without_count", missing
        if set_total is None:
            return None, no_total, self.batches[-1]
        if set_total != len(self.batches):
            return None, "eval_round_batches_vs_progress_bar", self.batches[-1]
        total = sum(b.trajectories or 0 for b in self.batches)
        if total <= 0:
            return None, "eval_round_no_trajectories", self.batches[-1]
        avg = sum((b.trajectories or 0) * b.avg for b in self.batches) / total
        success = sum((b.trajectories or 0) * b.success for b in self.batches) / total
        return {"avg": avg, "success": success}, "", None


def set_bar_total(msg: str) -> int | None:
    """The Evaluation Progress bar's total when it is complete (n == total), else None."""
    m = SET_BAR_RE.match(msg)
    if m is None or m.group(1) != m.group(2):
        return None
    return int(m.group(2))
