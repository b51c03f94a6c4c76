"""Synthetic before/after trace tables for the Q1 tests: every feature has a per-task level shared
by both sides plus noise, so a change planted in one feature is the only real difference."""

import json

import numpy as np
import pandas as pd

from rl_assets.schema import FEATURE_COLUMNS


def make_side(seed, *, n_tasks=60, attempts=3, tool_error_shift=0.0, pass_p=0.4, prefix="t", benchmarks=("bench-a",)):
    """Rows per attempt; every feature has a per-task level (shared by both sides) plus noise."""
    levels = np.random.default_rng(1234).normal(5, 2, size=(n_tasks, len(FEATURE_COLUMNS)))
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_tasks):
        for k in range(attempts):
            passed = bool(rng.random() < pass_p)
            row = {
                "trace_id": f"{seed}-{t}-{k}",
                "task_id": f"{prefix}{t}",
                "attempt": k,
                "benchmark": benchmarks[t % len(benchmarks)],
                "reward": 1.0 if passed else 0.0,
                "passed": passed,
                "error_type": None,
                "is_infra_error": False,
                "tool_calls_by_name": json.dumps({"bash": 3, "python": 1}),
            }
            for j, feat in enumerate(FEATURE_COLUMNS):
                row[feat] = float(levels[t, j] + rng.normal(0, 1))
            row["tool_errors"] += tool_error_shift
            rows.append(row)
    return pd.DataFrame(rows)
