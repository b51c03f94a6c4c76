"""The alignment of two action sequences (rl_assets/values/actions.py reads them from a trace):
where did the post-RL agent start doing something different?

Alignment: the longest common prefix first (the divergence point is by definition where it ends),
then difflib's matcher on the two remainders, so the side-by-side table re-synchronizes when both
agents later issue the same commands again.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from itertools import zip_longest

from rl_assets.values.actions import Action


@dataclass
class Alignment:
    base: list[Action]
    post: list[Action]
    prefix: int  # length of the common prefix
    rows: list[tuple[str, int | None, int | None]]  # (equal|replace|delete|insert, base idx, post idx)

    @property
    def divergence(self) -> int | None:
        """Action index k of the first difference; None when both sequences are identical."""
        return None if self.prefix == len(self.base) == len(self.post) else self.prefix

    def divergence_message(self, side: int) -> int | None:
        """Message index of action k on side 0 (base) / 1 (post); None if that side has no action k."""
        acts = self.base if side == 0 else self.post
        k = self.divergence
        return acts[k].msg_index if k is not None and k < len(acts) else None


def align_actions(base: list[Action], post: list[Action]) -> Alignment:
    a, b = [x.key for x in base], [x.key for x in post]
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    rows: list[tuple[str, int | None, int | None]] = [("equal", i, i) for i in range(p)]
    matcher = difflib.SequenceMatcher(None, a[p:], b[p:], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        for i, j in zip_longest(range(p + i1, p + i2), range(p + j1, p + j2)):
            rows.append((op if i is not None and j is not None else ("delete" if j is None else "insert"), i, j))
    return Alignment(base, post, p, rows)
