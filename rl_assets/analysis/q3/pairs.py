"""Q3 trace pairs: which same-task pairs to show, which attempt per side, and where they diverge.

Pure functions over the normalized trace table (docs/original_pipeline.md "Q3 pairs", with W24 fixed: the shown
attempt is the task's *typical* attempt, not its best one). Rendering lives in pairs_html.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.q3.pairs_align import Alignment, align_actions
from rl_assets.values.actions import extract_actions
from rl_assets.values.task_identity import NO_TASK_ID, missing_task_id

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

MODES = ("flips", "reward_delta", "behavior_delta", "random")
ATTEMPT_RULE = (
    "Shown attempt per side: the lowest-numbered attempt whose outcome equals the task's majority "
    "outcome (pass if more than half of its scored attempts passed, else fail; a tie counts as fail; "
    "infrastructure-error attempts are not scored and never shown unless nothing else exists)."
)
MODE_RULES = {
    "flips": "tasks whose majority outcome flipped (pass↔fail), largest change in pass rate first; "
    "remaining slots filled by largest |Δ mean reward|",
    "reward_delta": "largest |Δ mean reward| per task (errors count 0, infra errors dropped)",
    "behavior_delta": "largest summed |Δ| of turns, tool calls, tool errors, tokens and think tokens, "
    "each scaled by its standard deviation across common tasks",
    "random": "a seeded random sample of the common tasks",
}
SYMBOL = {"pass": "✔", "fail": "✘", "error": "⚠", "infra": "∅"}
CARD_FIELDS = ("reward", "n_turns", "tool_calls_total", "tool_errors", "assistant_tokens", "think_tokens")
_BEHAVIOUR = ("n_turns", "tool_calls_total", "tool_errors", "assistant_tokens", "think_tokens")


def _missing(v: object) -> bool:
    import pandas as pd

    return v is None or (isinstance(v, float) and v != v) or v is pd.NA or v is pd.NaT


def outcome(row: dict[str, Any]) -> str:
    """pass / fail / error (agent error, counts as a failure) / infra (not scored)."""
    if row.get("is_infra_error"):
        return "infra"
    if row.get("error_type"):
        return "error"
    return "pass" if row.get("passed") else "fail"


@dataclass
class TaskSide:
    """Every attempt of one task on one side, and the one attempt the page shows."""

    task_id: str
    attempts: list[dict[str, Any]]  # light rows sorted by attempt
    majority: str  # "pass" | "fail"
    pass_rate: float | None  # over scored (non-infra) attempts
    mean_reward: float | None  # errors as 0, infra dropped
    shown: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        return " ".join(SYMBOL[outcome(r)] for r in self.attempts)


def task_side(task_id: str, rows: list[dict[str, Any]]) -> TaskSide:
    rows = sorted(rows, key=lambda r: (r.get("attempt") is None, r.get("attempt") or 0, r.get("trace_id")))
    scored = [r for r in rows if outcome(r) != "infra"]
    n_pass = sum(outcome(r) == "pass" for r in scored)
    majority = "pass" if 2 * n_pass > len(scored) else "fail"
    shown = next((r for r in scored if (outcome(r) == "pass") == (majority == "pass")), rows[0])
    rewards = [0.0 if _missing(r.get("reward")) else float(r["reward"]) for r in scored]
    return TaskSide(
        task_id,
        rows,
        majority,
        n_pass / len(scored) if scored else None,
        sum(rewards) / len(rewards) if rewards else None,
        shown,
    )


def group_tasks(df: pd.DataFrame) -> dict[str, TaskSide]:
    """Light trace rows (no conversation) -> {task_id: TaskSide}. A row without a task id is an
    error, not a task "None" that would pair with the other side's id-less rows: the trace table
    has none (the ingest skips such rows, counted), and the pairing rejects them as well."""
    # pandas stores missing strings/numbers as NaN, which is truthy: normalize to None once here.
    records: list[dict[str, Any]] = [
        {str(k): (None if _missing(v) else v) for k, v in r.items()} for r in df.to_dict("records")
    ]
    idless = [r.get("trace_id") for r in records if missing_task_id(r.get("task_id"))]
    if idless:
        raise ValueError(f"{NO_TASK_ID}: {len(idless)} of {len(records)} rows, trace ids {idless[:5]}")
    by_task: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_task.setdefault(r["task_id"], []).append(r)
    return {t: task_side(t, rows) for t, rows in by_task.items()}


def _mean_feature(side: TaskSide, col: str) -> float:
    raw: list[Any] = [r.get(col) for r in side.attempts if outcome(r) != "infra"]
    vals = [float(v) for v in raw if not _missing(v)]
    return sum(vals) / len(vals) if vals else 0.0


def _reward_delta(b: TaskSide, a: TaskSide) -> float:
    return abs((a.mean_reward or 0.0) - (b.mean_reward or 0.0))


def _behaviour_scores(base: dict[str, TaskSide], post: dict[str, TaskSide], common: list[str]) -> dict[str, float]:
    import pandas as pd

    deltas = pd.DataFrame(
        {c: [_mean_feature(post[t], c) - _mean_feature(base[t], c) for t in common] for c in _BEHAVIOUR}, index=common
    )
    scale = deltas.std(ddof=0).replace(0.0, 1.0)  # a constant feature contributes nothing, not NaN
    return {str(t): float(s) for t, s in (deltas.abs() / scale).sum(axis=1).items()}


def select_tasks(
    base: dict[str, TaskSide], post: dict[str, TaskSide], mode: str, top_n: int, seed: int
) -> list[tuple[str, str]]:
    """[(task_id, why it was selected)] in page order; ties broken by task id (deterministic)."""
    if mode not in MODES:
        raise ValueError(f"unknown pair selection mode {mode!r}; choose one of {', '.join(MODES)}")
    common = sorted(set(base) & set(post))
    if mode == "random":
        return [
            (t, f"random sample (seed {seed})") for t in random.Random(seed).sample(common, min(top_n, len(common)))
        ]
    by_reward = sorted(common, key=lambda t: (-_reward_delta(base[t], post[t]), t))
    if mode == "reward_delta":
        return [(t, f"|Δ mean reward| = {_reward_delta(base[t], post[t]):.3f}") for t in by_reward[:top_n]]
    if mode == "behavior_delta":
        scores = _behaviour_scores(base, post, common) if common else {}
        ranked = sorted(common, key=lambda t: (-scores[t], t))
        return [(t, f"behaviour change score {scores[t]:.2f}") for t in ranked[:top_n]]
    flips = [t for t in common if base[t].majority != post[t].majority]
    flips.sort(
        key=lambda t: (-abs((post[t].pass_rate or 0) - (base[t].pass_rate or 0)), -_reward_delta(base[t], post[t]), t)
    )
    out = [(t, f"outcome flip {SYMBOL[base[t].majority]} → {SYMBOL[post[t].majority]}") for t in flips[:top_n]]
    fill = [t for t in by_reward if t not in set(flips)][: top_n - len(out)]
    return out + [(t, f"filler (not a flip): |Δ mean reward| = {_reward_delta(base[t], post[t]):.3f}") for t in fill]


@dataclass
class Pair:
    task_id: str
    reason: str
    base: TaskSide
    post: TaskSide
    base_messages: list[dict[str, Any]]
    post_messages: list[dict[str, Any]]
    alignment: Alignment

    def divergence_messages(self) -> tuple[int | None, int | None]:
        """Message index on each side where action k (the first differing action) was issued."""
        return self.alignment.divergence_message(0), self.alignment.divergence_message(1)


def build_pairs(
    base_df: pd.DataFrame,
    post_df: pd.DataFrame,
    conversations: dict[str, list[dict[str, Any]]],
    *,
    mode: str = "flips",
    top_n: int = 25,
    seed: int = 0,
    shown: dict[str, str] | None = None,
) -> list[Pair]:
    """Select pairs and align their shown attempts. `conversations`: trace_id -> parsed messages
    (only the shown attempts are needed; see shown_trace_ids). `shown`: pairing key -> the task id
    a reader recognises, when the frames' task_id holds pairing keys (analysis/pairing/frames.py)."""
    base, post = group_tasks(base_df), group_tasks(post_df)
    pairs = []
    for task_id, why in select_tasks(base, post, mode, top_n, seed):
        b, a = base[task_id], post[task_id]
        bm, am = conversations.get(b.shown["trace_id"], []), conversations.get(a.shown["trace_id"], [])
        pairs.append(
            Pair(
                (shown or {}).get(task_id, task_id),
                why,
                b,
                a,
                bm,
                am,
                align_actions(extract_actions(bm), extract_actions(am)),
            )
        )
    return pairs


def shown_trace_ids(base_df: pd.DataFrame, post_df: pd.DataFrame, *, mode: str, top_n: int, seed: int) -> set[str]:
    """The trace ids whose conversations build_pairs will need (so the asset loads only those)."""
    base, post = group_tasks(base_df), group_tasks(post_df)
    return {s.shown["trace_id"] for t, _ in select_tasks(base, post, mode, top_n, seed) for s in (base[t], post[t])}
