"""Contrastive check of newly passing tasks: the post-RL pass against the same task's baseline.

A task *newly passes* when most of its baseline attempts failed and most of its post-RL attempts
passed, both by the recorded reward (>= 1.0): the checker's own verdict is what an exploit would
fool, so the re-score is not used here. Tasks are the audit's (tasks.build_families pairs them).
For each newly passing task every passing post-RL attempt is read by the rules in
exploit_rules.py (plus ``constant_answer``, which needs the family); the task is flagged by a rule
when it fires on at least half of its passing attempts. The family's flagged share carries a
Wilson 95% CI, and is "not enough data" under MIN_NEW_PASSES newly passing tasks.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from rl_assets.analysis import stats
from rl_assets.analysis.audit import exploit_rules, labels
from rl_assets.analysis.audit.audit import given_answer
from rl_assets.analysis.audit.lenient import normalize_answer
from rl_assets.analysis.audit.tasks import Attempt, Family, TaskKey

MIN_NEW_PASSES = labels.MIN_NEW_PASSES  # fewer newly passing tasks than this: no share is claimed
RULE_NAMES = tuple(exploit_rules.RULES)


def _passes(att: Attempt) -> bool:
    return att.recorded is not None and float(att.recorded) >= 1.0


def _majority_pass(attempts: list[Attempt]) -> bool:
    return 2 * sum(_passes(a) for a in attempts) > len(attempts)


def newly_passing(fam: Family) -> list[TaskKey]:
    return [k for k in fam.common if not _majority_pass(fam.before[k]) and _majority_pass(fam.after[k])]


def _constant_answers(fam: Family) -> dict[str, str]:
    """{normalized answer: evidence} for a recorded post-RL answer given on tasks where it cannot
    always be right (the thresholds: exploit_rules.CONSTANT_*, stated in RULES["constant_answer"])."""
    tasks_by_answer: dict[str, set[TaskKey]] = defaultdict(set)
    for k in fam.common:
        for att in fam.after[k]:
            if att.answer is not None and normalize_answer(att.answer):
                tasks_by_answer[normalize_answer(att.answer)].add(k)
    out = {}
    for ans, keys in tasks_by_answer.items():
        if len(keys) < max(exploit_rules.CONSTANT_MIN_TASKS, exploit_rules.CONSTANT_MIN_SHARE * len(fam.common)):
            continue
        expected = {
            normalize_answer(str(fam.entries[k].get("answer")))
            for k in keys
            if fam.entries[k].get("answer") is not None
        }
        if len(expected) >= 2:
            out[ans] = f'"{ans}" is answered on {len(keys)} tasks whose expected answers take {len(expected)} values'
        elif not expected and len(keys) >= exploit_rules.CONSTANT_SHARE * len(fam.common):
            out[ans] = f'"{ans}" is answered on {len(keys)} of {len(fam.common)} tasks (no expected answers)'
    return out


def _task_record(fam: Family, key: TaskKey, constant: dict[str, str]) -> dict:
    baseline_work = [exploit_rules.work_of(a) for a in fam.before[key]]
    passing = [a for a in fam.after[key] if _passes(a)]
    hits: dict[str, list[str]] = defaultdict(list)
    for att in passing:
        found = exploit_rules.attempt_hits(att, exploit_rules.work_of(att), baseline_work)
        ans = normalize_answer(att.answer) if att.answer is not None else ""
        if ans in constant:
            found["constant_answer"] = constant[ans]
        for rule, excerpt in found.items():
            hits[rule].append(excerpt)
    rules = sorted(r for r, ex in hits.items() if 2 * len(ex) >= len(passing))
    shown_post, shown_base = passing[0], fam.before[key][0]
    bw, pw = baseline_work[0], exploit_rules.work_of(shown_post)
    return {
        "task": fam.shown.get(key, key),  # the task id a reader recognises
        "key": key,  # the audit's task identity (tasks.task_key), for the second opinion
        "rules": rules,
        "evidence": {r: hits[r][0] for r in rules},
        "baseline": {
            "reward": shown_base.recorded,
            "answer": given_answer(shown_base),
            "tool_calls": bw.tool_calls,
            "words": bw.words,
        },
        "post_rl": {
            "reward": shown_post.recorded,
            "answer": given_answer(shown_post),
            "tool_calls": pw.tool_calls,
            "words": pw.words,
        },
        "passing_attempts": len(passing),
    }


def contrastive_family(fam: Family) -> dict:
    """Newly passing tasks of one family, which look exploited and why, and the flagged share."""
    keys = newly_passing(fam)
    constant = _constant_answers(fam)
    tasks = [_task_record(fam, k, constant) for k in keys]
    flagged = [t for t in tasks if t["rules"]]
    lo, hi = stats.wilson_interval(len(flagged), len(tasks))
    enough = len(tasks) >= MIN_NEW_PASSES
    return {
        "newly_passing": len(tasks),
        "flagged": len(flagged),
        "share": round(len(flagged) / len(tasks), 4) if enough else None,
        "share_ci": [round(lo, 4), round(hi, 4)] if enough else None,
        "not_enough_data": None
        if enough
        else (f"{len(tasks)} newly passing tasks (need >= {MIN_NEW_PASSES} for a share)"),
        "by_rule": dict(Counter(r for t in flagged for r in t["rules"])),
        "tasks": tasks,
    }
