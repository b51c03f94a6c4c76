"""Which tasks the judge sees, and which attempt stands for each side.

Attempt rule (stated in every report): per task and side, the attempt with the LOWEST attempt
number (ties: earliest date, then trace_id) — i.e. attempt 0. Its outcome is independent of the
other attempts, so it does not bias the comparison toward successes (as a best-reward pick does,
docs/original_pipeline.md W24). ``median-reward`` is available as an alternative.

Two probes: ``most_changed`` puts discordant (pass/fail flipped) tasks first, then ranks by the
seed's behaviour-delta score; ``random`` is a seeded uniform sample of the REMAINING tasks, so
the two are disjoint and the random one is an unbiased control.
"""

from __future__ import annotations

import random
from statistics import median_low

SCORE_FEATURES = ("tool_calls_total", "tool_errors", "assistant_tokens", "think_tokens", "self_correction_hits")
ATTEMPT_RULES = ("first", "median-reward")
# Trace-table columns the judge (and the failure-mode annotator) read per trace, besides the conversation.
ROW_COLUMNS = (
    "trace_id",
    "task_id",
    "attempt",
    "date",
    "reward",
    "passed",
    "error_type",
    "is_infra_error",
    "n_turns",
    "tool_error_rate",
    "premature_stop",
    "parse_error_markers",
    "peak_prompt_tokens",
    *SCORE_FEATURES,
)


def _order(row: dict) -> tuple:
    attempt = row.get("attempt")
    return (attempt if attempt is not None else 1 << 30, str(row.get("date") or ""), str(row.get("trace_id")))


def representatives(rows: list[dict], rule: str = "first") -> dict[str, dict]:
    """task_id -> the one row that represents that task on this side."""
    if rule not in ATTEMPT_RULES:
        raise ValueError(f"attempt rule {rule!r}; expected one of {ATTEMPT_RULES}")
    by_task: dict[str, list[dict]] = {}
    for row in rows:
        if row.get("task_id") is not None:
            by_task.setdefault(str(row["task_id"]), []).append(row)
    out = {}
    for task, group in by_task.items():
        group.sort(key=_order)
        if rule == "median-reward":
            target = median_low([r.get("reward") or 0.0 for r in group])
            group = [r for r in group if (r.get("reward") or 0.0) == target]
        out[task] = group[0]
    return out


def behavior_score(a: dict, b: dict) -> float:
    """Σ |a−b| / max(|a|, |b|, 1) over SCORE_FEATURES (the original "most changed" probe's), nulls as 0."""
    total = 0.0
    for f in SCORE_FEATURES:
        x, y = float(a.get(f) or 0.0), float(b.get(f) or 0.0)
        total += abs(x - y) / max(abs(x), abs(y), 1.0)
    return total


def is_discordant(a: dict, b: dict) -> bool:
    return bool(a.get("passed")) != bool(b.get("passed"))


def select_probes(
    base: dict[str, dict],
    post: dict[str, dict],
    n_changed: int,
    n_random: int,
    seed: int = 0,
    exclude: set[str] | None = None,
) -> dict[str, list[str]]:
    """-> {"most_changed": [task ids], "random": [task ids]} over the common tasks (disjoint)."""
    common = sorted((set(base) & set(post)) - (exclude or set()))
    ranked = sorted(common, key=lambda t: (not is_discordant(base[t], post[t]), -behavior_score(base[t], post[t]), t))
    changed = ranked[: max(0, n_changed)]
    rest = [t for t in common if t not in set(changed)]
    random.Random(seed).shuffle(rest)
    return {"most_changed": changed, "random": sorted(rest[: max(0, n_random)])}
