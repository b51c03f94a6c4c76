"""vLLM stat-logger lines: parse, aggregate per reported time point, summarise, give a verdict."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

# "INFO 02-08 00:56:50 [loggers.py:248] Engine 000: Avg prompt throughput: 23.1 tokens/s, ..."
VLLM_RE = re.compile(
    r"(?:(\d{2}-\d{2} \d{2}:\d{2}:\d{2}) \[[^\]]*\] )?Engine (\d+): "
    r"Avg prompt throughput: ([\d.]+) tokens/s, Avg generation throughput: ([\d.]+) tokens/s, "
    r"Running: (\d+) reqs, Waiting: (\d+) reqs, GPU KV cache usage: ([\d.]+)%"
    r"(?:, Prefix cache hit rate: ([\d.]+)%)?"
)

FIELDS = ("prompt_tps", "generation_tps", "running", "waiting", "kv_cache_pct", "prefix_hit_pct")


class VllmAccumulator:
    """Sums per time point (vLLM prints no year, so the 'MM-DD HH:MM:SS' string is the key; Ray
    de-duplicates identical lines, so usually one engine per time point is visible)."""

    def __init__(self) -> None:
        self.points: dict[str, list[float]] = {}  # key -> [n, sums of FIELDS..., min/max run]
        self.samples = 0

    def add(self, match: re.Match, fallback_key: str) -> None:
        when = match.group(1) or fallback_key
        values = [float(match.group(i)) for i in range(3, 8)]
        values.append(float(match.group(8)) if match.group(8) is not None else 0.0)
        self.samples += 1
        acc = self.points.get(when)
        if acc is None:
            self.points[when] = [1.0, *values]
            return
        acc[0] += 1
        for i, v in enumerate(values, start=1):
            acc[i] += v

    def merge(self, other: VllmAccumulator) -> None:
        for when, acc in other.points.items():
            mine = self.points.get(when)
            if mine is None:
                self.points[when] = list(acc)
            else:
                for i, v in enumerate(acc):
                    mine[i] += v
        self.samples += other.samples

    def to_frame(self) -> pd.DataFrame:
        """One row per time point: engines reporting, total throughput/requests, mean KV/prefix %."""
        import pandas as pd

        rows = []
        for when, acc in sorted(self.points.items()):
            n = acc[0]
            rows.append(
                {
                    "time_point": when,
                    "n_engines_reporting": int(n),
                    "total_prompt_tps": acc[1],
                    "total_generation_tps": acc[2],
                    "total_running": acc[3],
                    "total_waiting": acc[4],
                    "avg_kv_cache_pct": acc[5] / n,
                    "avg_prefix_hit_pct": acc[6] / n,
                    "running_per_engine": acc[3] / n,
                    "generation_tps_per_engine": acc[2] / n,
                }
            )
        return pd.DataFrame(rows)


def vllm_summary(frame: pd.DataFrame, samples: int) -> dict:
    """Summary over time points plus the original parser's utilisation verdict, same thresholds
    (docs/original_pipeline.md, SkyRL metrics parser)."""
    if frame.empty:
        return {"total_samples": samples, "time_points": 0, "verdict": "no vLLM stat lines"}
    avg_running = float(frame["total_running"].mean())
    avg_waiting = float(frame["total_waiting"].mean())
    avg_gen = float(frame["total_generation_tps"].mean())
    if avg_waiting == 0 and avg_running < 5:
        verdict = "Underutilized: no queue and < 5 running requests on average"
    elif avg_waiting > 0:
        verdict = "Well-utilized: requests were queueing"
    elif avg_gen < 300:
        verdict = "Low throughput: < 300 generated tokens/s on average"
    else:
        verdict = "Moderate"
    return {
        "total_samples": samples,
        "time_points": int(len(frame)),
        "avg_engines_reporting": float(frame["n_engines_reporting"].mean()),
        "avg_total_generation_tps": avg_gen,
        "max_total_generation_tps": float(frame["total_generation_tps"].max()),
        "avg_total_prompt_tps": float(frame["total_prompt_tps"].mean()),
        "avg_total_running": avg_running,
        "max_total_running": float(frame["total_running"].max()),
        "avg_total_waiting": avg_waiting,
        "max_total_waiting": float(frame["total_waiting"].max()),
        "avg_kv_cache_pct": float(frame["avg_kv_cache_pct"].mean()),
        "avg_prefix_hit_pct": float(frame["avg_prefix_hit_pct"].mean()),
        "verdict": verdict,
    }
