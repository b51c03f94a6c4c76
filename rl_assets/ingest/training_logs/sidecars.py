"""Files that sit next to the .out chain logs: ``trainer_log.jsonl`` and ``wandb-summary.json``."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

from .crosscheck import unreadable_record
from .payloads import PayloadError, decode_json_object, numeric_items
from .result import T_END, LogFileResult, check_lines

STEP_KEYS = ("trainer/global_step", "global_step", "step", "_step")
TIME_KEYS = ("timestamp", "time", "_timestamp")


def _epoch(value) -> float | None:
    """Epoch seconds from a number or an ISO string (naive ISO read as UTC, like loguru times)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        return dt.timestamp()
    return None


def parse_trainer_jsonl(path: Path | str) -> LogFileResult:
    """One JSON object per line, flat or ``{"step": N, "metrics": {...}}``; a record without any
    step key cannot be placed and is counted as malformed."""
    path = Path(path)
    res = LogFileResult(name=path.name)
    res.serializations.add("trainer-jsonl")
    with open(path, encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            res.bump("lines")
            if not line.strip():
                res.ignored("blank")
                continue
            try:
                obj = decode_json_object(line)
            except PayloadError as exc:
                res.malformed("jsonl_truncated" if exc.truncated else "jsonl_json", line, lineno)
                continue
            inner = obj.get("metrics") if isinstance(obj.get("metrics"), dict) else {}
            metrics, _ = numeric_items({**obj, **inner})
            metrics.pop("metrics", None)
            step = next((metrics[k] for k in STEP_KEYS if k in metrics), None)
            if step is None or not math.isfinite(step) or step <= 0:
                res.malformed("jsonl_no_step", line, lineno)
                continue
            ts = next((t for k in TIME_KEYS if (t := _epoch(obj.get(k))) is not None), None)
            for k in (*TIME_KEYS, "step", "global_step", "_step"):
                metrics.pop(k, None)
            metrics["trainer/global_step"] = float(int(step))
            if ts is not None:
                metrics[T_END] = ts
                res.first_ts = ts if res.first_ts is None else min(res.first_ts, ts)
                res.last_ts = ts if res.last_ts is None else max(res.last_ts, ts)
            res.steps.update(int(step), metrics)
            res.parsed("trainer_jsonl")
    check_lines(res.name, res.counts)
    return res


def read_wandb_summary(path: Path | str) -> dict:
    """Final values W&B kept for the run (numeric keys only, W&B internals dropped). Used as a
    cross-check of the last logged step, never merged into the per-step table."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        return {"error": f"unreadable wandb-summary.json: {exc.msg} at character {exc.pos}", "path": str(path)}
    if not isinstance(obj, dict):
        return {"error": "wandb-summary.json is not an object", "path": str(path)}
    metrics, _ = numeric_items({k: v for k, v in obj.items() if k == "_step" or not k.startswith("_")})
    return metrics


def best_wandb_summary(paths: list[Path], base: Path) -> tuple[dict, list[dict]]:
    """Several runs' summaries: the readable one that reached the furthest step, and one
    ``unreadable_record`` cross-check per summary that could not be read (named, never dropped)."""
    best: dict = {}
    unreadable = []
    for p in paths:
        cand = read_wandb_summary(p)
        if "error" in cand:
            unreadable.append(unreadable_record(str(Path(p).relative_to(base)), cand["error"]))
        elif cand.get("_step", -1) >= best.get("_step", -1):
            best = cand
    return best, unreadable
