"""Facts the analyses must recover, measured from the generated trials themselves, so
ground_truth.json can never drift from the data on disk.

Two facts are the generator's declared intentions rather than measurements: terminal-bench-mini's
`behaviour_changes` and the rollouts' `trends` (TBM_CHANGES / ROLLOUT_TRENDS below). Next to each
the measured values are recorded (`feature_means`: per-trace means of every schema.FEATURE_COLUMNS
feature per side / quarter), and tests/demo/test_demo_world.py checks the declarations against them.
The "unchanged" features hold by construction (side-independent draws, see demo/terminal.py)."""

from __future__ import annotations

import re
import statistics

from . import measure
from .export_rows import Trial
from .reasoning import FAMILIES, family_dataset

TBM_CHANGES = {
    "tool_errors": "decrease",
    "tool_error_rate": "decrease",
    "think_tokens": "decrease",
    "think_token_ratio": "decrease",
    "tool_calls_total": "unchanged",
    "code_fence_blocks": "unchanged",
    "self_correction_hits": "unchanged",
}
ROLLOUT_TRENDS = {
    "reward": "increase",
    "tool_errors": "decrease",
    "tool_error_rate": "decrease",
    "think_tokens": "decrease",
    "code_fence_blocks": "unchanged",
    "self_correction_hits": "unchanged",
}
TRIVIAL = {
    "letter_counting": ("always answer 1", lambda e: "1"),
    "propositional_logic": (
        "join the premises with ∧",
        lambda e: " ∧ ".join(f"({p})" for p in e["metadata"]["premises"]),
    ),
    "word_sorting": ("repeat the input words unsorted", lambda e: ", ".join(e["metadata"]["original_words"])),
    "basic_arithmetic": ("always answer 0", lambda e: "0"),
    "chain_sum": ("always answer 0", lambda e: "0"),
    "leg_counting": ("always answer 0", lambda e: "0"),
}


def _mean(xs) -> float:
    xs = list(xs)
    return round(statistics.fmean(xs), 4) if xs else 0.0


def solve_rate(ts: list[Trial]) -> float:
    return _mean((t.reward or 0.0) >= 1.0 for t in ts)


def tbm(base: list[Trial], post: list[Trial], flips: dict, xss_task: str | None) -> dict:
    feats = {side: [measure.features(t.conversation) for t in ts] for side, ts in (("base", base), ("post", post))}
    return {
        "tasks": len({t.task for t in post}),
        "attempts_per_task": 3,
        "solve_rate": {"base": solve_rate(base), "post": solve_rate(post)},
        "behaviour_changes": TBM_CHANGES,  # declared; checked against feature_means by the tests
        "measured": {side: measure.summary_of(fs) for side, fs in feats.items()},
        "feature_means": {side: measure.means_of(fs) for side, fs in feats.items()},
        "premature_stop_rate": {side: _mean(f["premature_stop"] for f in fs) for side, fs in feats.items()},
        "flipped_tasks": [{"task": t, **f} for t, f in sorted(flips.items())],
        "xss_task": xss_task,
        "errors": {
            "base": sorted({t.result for t in base if t.reward is None}),
            "post": sorted({t.result for t in post if t.reward is None}),
        },
    }


def _lenient(text: str) -> str | None:
    nums = re.findall(r"-?\d+", text)
    return nums[-1] if nums else None


def rg(seed: int, n: int, base: list[Trial], post: list[Trial]) -> dict:
    out = {}
    for family, (_, label) in FAMILIES.items():
        ds, config = family_dataset(seed, family, n)
        sides = {
            "base": [t for t in base if t.extra["task_family"] == family],
            "post": [t for t in post if t.extra["task_family"] == family],
        }
        strategy, make = TRIVIAL[family]
        trivial = [make(ds[i]) for i in range(n)]
        fact = {
            "label": label,
            "dataset_seed": ds.config.seed,
            "size": n,
            "strict_mean": {s: _mean(t.reward for t in ts) for s, ts in sides.items()},
            "tag_rate": {s: _mean(t.extra["answer"] is not None for t in ts) for s, ts in sides.items()},
            "trivial_baseline": {
                "strategy": strategy,
                "score": _mean(ds.score_answer(trivial[i], ds[i]) for i in range(n)),
            },
            "post_matches_trivial": _mean(t.extra["answer"] == trivial[t.extra["task_index"]] for t in sides["post"]),
        }
        if family not in ("propositional_logic", "word_sorting"):
            fact["lenient_mean"] = {
                s: _mean(
                    ds.score_answer(_lenient(t.conversation[-1]["content"]), ds[t.extra["task_index"]]) for t in ts
                )
                for s, ts in sides.items()
            }
        out[family] = fact
    return out


def rollouts(ts: list[Trial]) -> dict:
    q = max(len(ts) // 4, 1)
    feats = [measure.features(t.conversation) for t in ts]
    reward = [float((t.reward or 0.0) >= 1.0) for t in ts]
    errors = [f["tool_errors"] for f in feats]

    def quarter(sl: slice) -> dict:
        m = measure.summary_of(feats[sl])
        return {
            "reward_rate": _mean(reward[sl]),
            "tool_error_rate": m["tool_error_rate"],
            "think_words_per_turn": m["think_words_per_turn"],
            "code_fence_blocks": m["code_fence_blocks"],
            "self_correction_hits": m["self_correction_hits"],
        }

    return {
        "rows": len(ts),
        "trials": len(ts),
        "one_row_per_trial": True,
        "first_quarter": quarter(slice(0, q)),
        "last_quarter": quarter(slice(len(ts) - q, len(ts))),
        "trends": ROLLOUT_TRENDS,  # declared; checked against feature_means by the tests
        "feature_means": {
            "first_quarter": measure.means_of(feats[:q]),
            "last_quarter": measure.means_of(feats[len(ts) - q :]),
        },
        "attribution": {
            "feature": "tool_errors",
            "direction": "negative",
            "trial_correlation_with_reward": round(statistics.correlation(errors, reward), 4),
        },
        "time_span": {"start": ts[0].date, "end": ts[-1].date},
    }
