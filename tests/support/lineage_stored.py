"""Stored values of a small audited RL job, as the run lineage reads them (shared by the lineage tests)."""

from __future__ import annotations


def _row(family, label, lo, hi, p):
    return {
        "family": family,
        "label": label,
        "n_tasks": 40,
        "reward_before": 0.2,
        "reward_after": 0.2 + (lo + hi) / 2,
        "reward_gain": {"estimate": (lo + hi) / 2, "lo": lo, "hi": hi, "p": p},
        "format_gain": 0.0,
        "substance_gain": 0.0,
        "baselines": [],
    }


def checkpoint_values(step: int, features: list[dict], solve_rates: tuple[dict, dict]) -> tuple[str, dict]:
    """(repo, stored values) of checkpoint `step` of "job": its checkpoint manifest, eval pair and Q1
    value with these features and (before, after) solve rates."""
    repo = f"org/job-{step}-8B"
    before, after = solve_rates
    return repo, {
        "checkpoint": {"job_name": "job", "rl_config": {"global_step": step}},
        "eval_pair": {
            "benchmark": "b",
            "base_model_name": "org/base",
            "baseline_eval": "org/base-evals",
            "post_rl_eval": f"{repo}-evals",
        },
        "behavioral_delta": {
            "n_boot": 2000,
            "features": features,
            "before": {"solve_rate": before},
            "after": {"solve_rate": after},
            "sources": {"baseline": {"source": "org/base-evals"}, "post-RL": {"source": f"{repo}-evals"}},
        },
    }


def audited_job() -> dict[str, dict]:
    """Three checkpoints of "job" (steps 1-3) with Q1, audit and judge values: family fmt is mostly
    format throughout, family game turns gamed at step 2."""
    rows = {
        1: [_row("fmt", "mostly format", 0.4, 0.6, 0.0005), _row("game", "no real gain", -0.1, 0.1, 1.0)],
        2: [_row("fmt", "mostly format", 0.4, 0.6, 0.0005), _row("game", "gamed", -0.05, 0.35, 0.27)],
        3: [_row("fmt", "mostly format", 0.4, 0.6, 0.0005), _row("game", "gamed", -0.05, 0.35, 0.27)],
    }
    out = {}
    for step, audit_rows in rows.items():
        repo, values = checkpoint_values(
            step, [], ({"rate": 0.2, "lo": 0.1, "hi": 0.3}, {"rate": 0.3, "lo": 0.2, "hi": 0.4})
        )
        out[repo] = {
            **values,
            "learning_audit": {"rows": audit_rows, "labels": {r["family"]: r["label"] for r in audit_rows}},
            "judge_verdicts": {
                "judge": "offline-heuristic (not an LLM)",
                "probes": {
                    "most_changed": {
                        "post_rl_win_rate_decisive": {"share": 0.75, "wilson95": [0.6, 0.86]},
                        "judged": 30,
                        "win": {"post-rl": {"count": 21}, "baseline": {"count": 7}},
                    }
                },
            },
        }
    return out
