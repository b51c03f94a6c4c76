"""Which baseline task is which post-RL task: the one pairing every analysis calls, and its table.

Q1, the learning audit and the model comparison key their rows with ``pair_rows`` and use only
its paired keys for paired statistics, so they agree on what "the same task" means
(rl_assets/values/task_identity.py states the rule). Every call also says, per family or benchmark, how
many tasks were paired, which were seen on one side only, and how they were paired.

Task ids (exported rows, Harbor) can differ by spelling between two files. A stated normalisation
(``ID_RULES``) is applied only when the caller asks for it (``AnalysisSettings.task_id_normalisation``);
otherwise, when it would pair most of the tasks the raw ids do not, ``near_miss`` says so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from rl_assets.analysis.pairing.settings import settings_differences
from rl_assets.values.task_identity import NO_TASK_ID, NORMALISED_ID, QUESTION_HASH, TASK_ID, NoTaskId, stored_key

# case: compare lower-cased; prefix/suffix: drop what every id of one side starts/ends with (cut at
# a separator); version: drop a trailing version tag such as "@1.2", ":v3", "-v2", "_v1.0". In order
# of preference: of two rule sets that pair as many ids, the one with the narrower rules is suggested.
ID_RULES = ("case", "prefix", "version", "suffix")
FEW = 0.5  # raw ids pair fewer than this share of the smaller side ...
MOST = 0.5  # ... and a normalisation would pair at least this share: a near miss
EXAMPLES = 3
ONLY_BEFORE = "not compared: only in the baseline file"
ONLY_AFTER = "not compared: only in the post-RL file"
DISJOINT = "not compared: no task in common"
PAIRED = "paired"

_SEPARATORS = "/:.-_@ "
_VERSION = re.compile(r"(?i)(?:[@:]v?\d+(?:\.\d+)*|[-_.]v\d+(?:\.\d+)*)$")


def default_group(row: dict[str, Any]) -> str:
    return str(row.get("task_family") or row.get("benchmark") or "all")


@dataclass
class Side:
    keys: list[str]  # the pairing key of each input row, in order
    source: dict[str, str] = field(default_factory=dict)  # key -> question_hash | task_id | normalised_id
    shown: dict[str, str] = field(default_factory=dict)  # key -> a task id a reader recognises
    group: dict[str, str] = field(default_factory=dict)  # key -> family / benchmark of its first row
    ids: dict[str, set[str]] = field(
        default_factory=dict
    )  # key -> the task ids of its rows (more than one: a collision)


@dataclass
class Pairing:
    before: Side
    after: Side
    report: dict[str, Any]  # JSON-able: rule, normalisation, groups[], totals, near_miss, settings_differ

    @property
    def common(self) -> list[str]:
        """Keys on both sides, sorted (the paired statistics use only these)."""
        return sorted(set(self.before.source) & set(self.after.source))


def check_rules(rules: Sequence[str]) -> tuple[str, ...]:
    unknown = [r for r in rules if r not in ID_RULES]
    if unknown:
        raise ValueError(f"task_id_normalisation {unknown} unknown; choose from {list(ID_RULES)}")
    return tuple(r for r in ID_RULES if r in rules)


def _edge(ids: list[str], suffix: bool) -> str:
    """What every id of one side starts (ends) with, cut back to a separator; '' below 2 ids."""
    if len(set(ids)) < 2:
        return ""
    texts = [i[::-1] for i in ids] if suffix else ids
    first, last = min(texts), max(texts)
    n = next((k for k, (a, b) in enumerate(zip(first, last)) if a != b), min(len(first), len(last)))
    cut = max((k + 1 for k in range(n) if first[k] in _SEPARATORS), default=0)
    edge = first[:cut]
    return edge[::-1] if suffix else edge


def id_normaliser(rules: Sequence[str], ids: Iterable[str]) -> Callable[[str], str]:
    """The normalisation of one side's task ids (prefix/suffix are that side's own)."""
    ids = list(ids)
    prefix = _edge(ids, False) if "prefix" in rules else ""
    suffix = _edge(ids, True) if "suffix" in rules else ""

    def norm(x: str) -> str:
        if prefix and x.startswith(prefix):
            x = x[len(prefix) :]
        if suffix and x.endswith(suffix) and len(x) > len(suffix):
            x = x[: -len(suffix)]
        if "version" in rules:
            x = _VERSION.sub("", x)
        return x.lower() if "case" in rules else x

    return norm


def _keys(rows: list[dict[str, Any]], name: str) -> list[tuple[str, str]]:
    """(key, key source) per row; rows without a task id to key by are an error naming how many
    (the trace table has none: a row keyed "None" would pair with the other side's)."""
    raw: list[tuple[str, str]] = []
    idless = 0
    for r in rows:
        try:
            raw.append(stored_key(r))
        except NoTaskId:
            idless += 1
    if idless:
        raise NoTaskId(f"{NO_TASK_ID}: {idless} of {len(rows)} {name} rows")
    return raw


def _side(
    rows: list[dict[str, Any]], group_of: Callable[[dict[str, Any]], str], rules: tuple[str, ...], name: str
) -> Side:
    raw = _keys(rows, name)
    norm = id_normaliser(rules, {k for k, s in raw if s == TASK_ID}) if rules else None
    side = Side([])
    for row, (key, source) in zip(rows, raw):
        if norm is not None and source == TASK_ID:
            key, source = f"~{norm(key)}", NORMALISED_ID
        side.keys.append(key)
        side.source.setdefault(key, source)
        side.shown.setdefault(key, str(row.get("task_id")))
        side.group.setdefault(key, group_of(row))
        if row.get("task_id") is not None:
            side.ids.setdefault(key, set()).add(str(row.get("task_id")))
    return side


def collisions(side: Side, keys: set[str]) -> list[list[str]]:
    """The task-id sets of ``keys`` that hold more than one task id on this side: distinct tasks of one
    file with the same question (or ids one normalisation maps together), paired as one task."""
    return sorted(sorted(side.ids[k]) for k in keys if len(side.ids.get(k, ())) > 1)


def near_miss(before_ids: set[str], after_ids: set[str]) -> dict[str, Any] | None:
    """The smallest rule set that would pair most task ids the raw ids leave unpaired, or None."""
    smaller = min(len(before_ids), len(after_ids))
    raw = len(before_ids & after_ids)
    if not smaller or raw >= FEW * smaller:
        return None
    best: dict[str, Any] | None = (
        None  # the fewest rules that reach the most pairs: nothing normalised that need not be
    )
    for rules in (c for n in range(1, len(ID_RULES) + 1) for c in combinations(ID_RULES, n)):
        nb, na = id_normaliser(rules, before_ids), id_normaliser(rules, after_ids)
        mapped_b, mapped_a = {nb(i): i for i in sorted(before_ids)}, {na(i): i for i in sorted(after_ids)}
        common = sorted(set(mapped_b) & set(mapped_a))
        if len(common) >= MOST * smaller and len(common) > raw and (best is None or len(common) > best["would_pair"]):
            best = {
                "rules": list(rules),
                "paired": raw,
                "would_pair": len(common),
                "of": smaller,
                "examples": [[mapped_b[c], mapped_a[c]] for c in common[:EXAMPLES]],
            }
    return best


def _group_rows(before: Side, after: Side) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in sorted(set(before.group.values()) | set(after.group.values())):
        b = {k for k, g in before.group.items() if g == name}
        a = {k for k, g in after.group.items() if g == name}
        both = b & a
        # same task id on both sides but another question: the generator or prompt changed, not the task set
        moved = {before.shown[k] for k in b - a if before.source[k] == QUESTION_HASH} & {
            after.shown[k] for k in a - b if after.source[k] == QUESTION_HASH
        }
        clash_b, clash_a = collisions(before, b), collisions(after, a)
        status = PAIRED if both else ONLY_BEFORE if not a else ONLY_AFTER if not b else DISJOINT
        out.append(
            {
                "group": name,
                "paired": len(both),
                "only_before": len(b - a),
                "only_after": len(a - b),
                "how": dict(Counter(before.source[k] for k in both)),
                "status": status,
                "examples_only_before": sorted(before.shown[k] for k in b - a)[:EXAMPLES],
                "examples_only_after": sorted(after.shown[k] for k in a - b)[:EXAMPLES],
                "same_id_other_question": len(moved),
                "collisions_before": len(clash_b),
                "collisions_after": len(clash_a),
                "examples_collision": (clash_b + clash_a)[:EXAMPLES],
            }
        )
    return out


def pair_rows(
    before_rows: Iterable[dict[str, Any]],
    after_rows: Iterable[dict[str, Any]],
    *,
    normalise: Sequence[str] = (),
    group_of: Callable[[dict[str, Any]], str] = default_group,
) -> Pairing:
    """Key both sides' rows (rows: dicts with task_id, task_key, task_key_source, task_family,
    benchmark, question, task_config, task_index, gen_settings, as far as the table has them)."""
    rules = check_rules(normalise)
    before_list, after_list = list(before_rows), list(after_rows)
    before, after = _side(before_list, group_of, rules, "baseline"), _side(after_list, group_of, rules, "post-RL")
    groups = _group_rows(before, after)
    ids = [{k for k, s in side.source.items() if s == TASK_ID} for side in (before, after)]
    report: dict[str, Any] = {
        "rule": "a task is its family + normalised question (hashed) where the rows carry a question or a "
        "reasoning-gym config to regenerate it from, else its task id"
        + (f", task ids normalised by {list(rules)}" if rules else ""),
        "normalisation": list(rules),
        "groups": groups,
        "totals": {k: sum(g[k] for g in groups) for k in ("paired", "only_before", "only_after")},
        "near_miss": None if rules else near_miss(*ids),
        "settings_differ": settings_differences(before_list, after_list, before.keys, after.keys),
    }
    return Pairing(before, after, report)
