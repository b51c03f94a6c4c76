"""Rows that share a trial key: merged when their content is identical, told apart when not.

The key is what a trace_id is made of: (task, trial, attempt, episode), attempts numbered. Two
rows with one key are either the same trial found twice (the same shard copied into two folders, a trial
folder reached through two paths that the walk could not tell apart) or two different rows the
source gave one name. Only rows whose key repeats are read again to hash their content, so a
source without repeats pays nothing. Identical content: the first row is kept and each repeat
is counted as merged. Different content: all are kept, each later one with ``dup`` = 1, 2, ...
which joins its trace_id, and a note says so -- never two rows with one trace_id.
Rows without a trial name or recorded attempt have no identity beyond their position: each was
numbered its own attempt, so its key is unique and it is never merged (a deterministic model can
write the same answer twice).
"""

from __future__ import annotations

from .report import SkipLog

DUPLICATE = "identical row found again (kept once)"
SAME_KEY = "same trial key, different content (kept, distinct trace_id)"


def dedup(cands: list, skips: SkipLog, fingerprints) -> list:
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(cands):
        groups.setdefault((c.task_id, c.trial_name, c.attempt, c.episode), []).append(i)
    repeated = [g for g in groups.values() if len(g) > 1]
    if not repeated:
        return cands
    hashes = fingerprints([cands[i] for g in repeated for i in g]) if fingerprints else {}
    drop = set()
    for group in repeated:
        seen: set[str] = set()
        distinct = 0
        for i in group:
            fp = hashes.get(id(cands[i]))
            if fp is not None and fp in seen:
                drop.add(i)
                skips.merge(DUPLICATE)
                continue
            if fp is not None:
                seen.add(fp)
            if distinct:
                cands[i].dup = distinct
                cands[i].notes = (*cands[i].notes, SAME_KEY)
            distinct += 1
    return [c for i, c in enumerate(cands) if i not in drop]
