"""Agentic generator batch-error lines, accumulated per step and turned into batch_errors/* keys."""

from __future__ import annotations

import ast
import re

BREAKDOWN_RE = re.compile(r"Exception breakdown: (\{.*\})")
COMPLETE_RE = re.compile(r"Batch generation complete: (\d+)/(\d+) successful, (\d+) failed instances?, (\d+) masked")


class BatchErrors:
    """step -> [batches, instances, successful, failed, masked] and step -> {exception: count}."""

    def __init__(self) -> None:
        self.totals: dict[int, list[int]] = {}
        self.exceptions: dict[int, dict[str, int]] = {}

    def feed(self, msg: str, step: int) -> bool:
        """Consume one line; False when it names the shape but cannot be read."""
        m = COMPLETE_RE.search(msg)
        if m:
            ok, total, failed, masked = (int(g) for g in m.groups())
            acc = self.totals.setdefault(step, [0, 0, 0, 0, 0])
            for i, v in enumerate((1, total, ok, failed, masked)):
                acc[i] += v
            return True
        m = BREAKDOWN_RE.search(msg)
        if not m:
            return False
        try:
            breakdown = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError):
            return False
        if not isinstance(breakdown, dict):
            return False
        acc_exc = self.exceptions.setdefault(step, {})
        for name, count in breakdown.items():
            if isinstance(count, (int, float)):
                acc_exc[str(name)] = acc_exc.get(str(name), 0) + int(count)
        return True

    def per_step_metrics(self):
        """Yield (step, metrics) for steps with at least one completed batch (seed rule); the
        per-exception average divides by that step's batch count."""
        for step, (batches, instances, ok, failed, masked) in sorted(self.totals.items()):
            metrics = {
                "batch_errors/total_batches": float(batches),
                "batch_errors/total_instances": float(instances),
                "batch_errors/total_successful": float(ok),
                "batch_errors/total_failed": float(failed),
                "batch_errors/total_masked": float(masked),
            }
            for name, count in self.exceptions.get(step, {}).items():
                metrics[f"batch_errors/total_{name}"] = float(count)
                metrics[f"batch_errors/avg_{name}"] = count / batches
            yield step, metrics
