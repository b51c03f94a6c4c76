"""Trials -> Harbor exported trace rows (docs/formats.md), the one row shape every demo dataset uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .constants import AGENT, PROVIDER, iso_z


@dataclass
class Trial:
    task: str
    attempt: int
    trial_name: str
    date: datetime
    result: str  # "1.0" / "0.25" / an exception class name
    conversation: list[dict]
    extra: dict = field(default_factory=dict)  # benchmark-specific columns (reasoning-gym audit fields)

    @property
    def reward(self) -> float | None:
        try:
            return float(self.result)
        except ValueError:
            return None


def _episode_cuts(conv: list[dict]) -> list[list[dict]]:
    """Cumulative prefixes, one per agent turn; the last one is the whole conversation."""
    ends = [i + 1 for i, m in enumerate(conv) if m["role"] == "assistant"] or [len(conv)]
    cuts = [conv[:e] for e in ends[:-1]]
    return cuts + [conv]


def rows(
    trials: list[Trial], model: str, run_id: str, episode_level: frozenset[str] | set[str] = frozenset()
) -> list[dict]:
    """One row per trial (its last episode); trials named in `episode_level` get every episode."""
    out: list[dict] = []
    for t in trials:
        cuts = _episode_cuts(t.conversation)
        keep = range(len(cuts)) if t.trial_name in episode_level else [len(cuts) - 1]
        for k in keep:
            out.append(
                {
                    "conversations": cuts[k],
                    "agent": AGENT,
                    "model": f"{PROVIDER}/{model}",
                    "model_provider": PROVIDER,
                    "date": iso_z(t.date),
                    "task": t.task,
                    "episode": f"episode-{k}",
                    "run_id": run_id,
                    "trial_name": t.trial_name,
                    "result": t.result,
                    **t.extra,
                }
            )
    return out


def score_summary(trials: list[Trial], infra: frozenset[str]) -> dict:
    """Harbor-style job metrics: errors count 0; `accuracy` drops infra-error trials (the DB default)."""
    kept = [t for t in trials if t.result not in infra]
    mean = sum(t.reward or 0.0 for t in trials) / max(len(trials), 1)
    acc = sum(t.reward or 0.0 for t in kept) / max(len(kept), 1)
    errors: dict[str, int] = {}
    for t in trials:
        if t.reward is None:
            errors[t.result] = errors.get(t.result, 0) + 1
    return {
        "n_trials": len(trials),
        "n_errors": sum(errors.values()),
        "exception_stats": dict(sorted(errors.items())),
        "mean": round(mean, 6),
        "accuracy": round(acc, 6),
        "n_infra_errors": len(trials) - len(kept),
    }
