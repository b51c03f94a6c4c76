"""Stream one SkyRL log file line by line into per-step metric rows (every shape of docs/formats.md).

Step assignment, in order of authority:
1. an explicit step on the line (``WANDB_MIRROR ... step=N`` / ``'trainer/global_step': N``);
2. the step timer: inside ``Started: 'step'`` .. ``Finished: 'step'`` a line belongs to the open
   step, after it to the step just finished, so an un-numbered legacy dict gets
   "count of preceding ``Finished: 'step'``" (+1 while a step is open). Explicit steps re-anchor the
   counter, which keeps restarted logs (resumed at step 40) numbered correctly, as do a
   ``Resumed ... global_step_N`` line and a loguru-prefixed generator ``Step N:`` marker. Step-less
   metrics of an open step are held until the step closes, so a re-anchor mid-step moves them too.
Batch-error lines follow the last ``Step N:`` marker when there is one (seed behaviour). Markers
count only on loguru-prefixed lines or as a bare ``Step N:`` line (console tracker), because agent
text in rollout dumps is full of "Step 1: ..." plans.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .batch_errors import BatchErrors
from .clean import clean_line
from .payloads import PayloadError, decode_json_object, decode_python_dict, numeric_items
from .store import StepStore
from .vllm import VLLM_RE, VllmAccumulator

WANDB_RE = re.compile(r"WANDB_MIRROR kind=(\w+) step=(-?\d+) metrics=(.*)$")
TIMER_RE = re.compile(r"^(Started|Finished): '([\w.]+)'(?:, time cost: ([\d.eE+-]+)s)?")
STEP_MARKER_RE = re.compile(r"\bStep (\d+):")
BARE_MARKER_RE = re.compile(r"^Step (\d+):\s*$")
RESUMED_RE = re.compile(r"[Rr]esum\w*\b.*\bglobal_step[_ =:]*(\d+)")
GEN_REWARDS_RE = re.compile(r"Generation rewards - Avg: ([-\d.eE+]+|nan), Success rate: ([-\d.eE+]+|nan)")
T_END, T_START = "__time_end", "__time_start"  # reserved store keys: epoch seconds of the step
MAX_BLOCK_LINES = 5000  # a console dict block longer than this is not a metrics block
MAX_EXAMPLES = 5


@dataclass
class LogFileResult:
    name: str
    first_ts: float | None = None
    last_ts: float | None = None
    steps: StepStore = field(default_factory=StepStore)
    evals: StepStore = field(default_factory=StepStore)
    startup: dict[str, float] = field(default_factory=dict)
    vllm: VllmAccumulator = field(default_factory=VllmAccumulator)
    counts: dict[str, int] = field(default_factory=dict)  # lines, malformed_*, shape hits, ...
    examples: list[str] = field(default_factory=list)  # first malformed lines, truncated
    serializations: set[str] = field(default_factory=set)  # wandb-json / python-dict / console

    def bump(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def malformed(self, reason: str, line: str) -> None:
        self.bump("malformed")
        self.bump(f"malformed/{reason}")
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{self.name}: {reason}: {line[:200]}")


class LogFileParser:
    """Feed lines with ``feed``; call ``finish`` once. Memory grows with steps, not with lines."""

    def __init__(self, name: str) -> None:
        self.res = LogFileResult(name=name)
        self.last_finished = 0
        self.open_step: int | None = None
        self.ts: float | None = None  # last loguru time seen: lines without one inherit it
        self.block: list[str] | None = None
        self.batch = BatchErrors()
        self.marker_step: int | None = None
        self.explicit_steps: set[int] = set()
        self.pending: dict[str, float] = {}  # step-less metrics of the open step

    def current_step(self) -> int:
        return self.open_step if self.open_step is not None else self.last_finished

    def _anchor(self, step: int) -> None:
        if self.open_step is not None:
            self.open_step = step
        else:
            self.last_finished = step

    def _record(self, step: int, metrics: dict[str, float], ts: float | None, explicit: bool) -> None:
        if not explicit and self.open_step is not None and step == self.open_step:
            self.pending.update(metrics)
            return
        if step <= 0:  # before the first training step: setup timers, step-0 eval
            self.res.startup.update(metrics)
            return
        if explicit:
            if step in self.explicit_steps:
                self.res.bump("repeated_steps_in_file")  # same step printed twice in one log
            self.explicit_steps.add(step)
        self.res.steps.update(step, metrics)
        # the metrics line is the step's end time only when no `Finished: 'step'` line gave one
        if explicit and ts is not None and math.isnan(self.res.steps.get(step, T_END)):
            self.res.steps.update(step, {T_END: ts})

    def feed(self, raw: str) -> None:
        res = self.res
        res.bump("lines")
        msg, ts, _where = clean_line(raw)
        if ts is not None:
            self.ts = ts
            if res.first_ts is None:
                res.first_ts = ts
            res.last_ts = ts
        if self.block is not None and self._continue_block(msg):
            return
        if "WANDB_MIRROR" in msg:
            self._wandb(msg)
        elif msg.startswith("{'"):
            self._dict_start(msg)
        elif msg.startswith(("Started: '", "Finished: '")):
            self._timer(msg)
        elif "Engine " in msg and "throughput" in msg:
            m = VLLM_RE.search(msg)
            if m:
                res.vllm.add(m, fallback_key=str(self.ts))
                res.bump("shape/vllm")
        elif "Exception breakdown:" in msg or "Batch generation complete:" in msg:
            if self.batch.feed(msg, self._batch_step()):
                res.bump("shape/batch_errors")
            else:
                res.malformed("batch_error_line", msg)
        elif "Step " in msg and (m := (STEP_MARKER_RE.search(msg) if ts is not None else BARE_MARKER_RE.match(msg))):
            self.marker_step = int(m.group(1))
            self._anchor(self.marker_step)
        elif "global_step" in msg and (m := RESUMED_RE.search(msg)) and self.open_step is None:
            self.last_finished = int(m.group(1))
        elif "avg_" in msg or "reward/" in msg or "Generation rewards" in msg:
            self._key_values(msg)

    def _batch_step(self) -> int:
        return self.marker_step if self.marker_step is not None else max(self.current_step(), 1)

    def _wandb(self, msg: str) -> None:
        m = WANDB_RE.search(msg)
        if not m:
            self.res.malformed("wandb_prefix", msg)
            return
        kind, step = m.group(1), int(m.group(2))
        try:
            payload = decode_json_object(m.group(3))
        except PayloadError as exc:
            self.res.malformed("wandb_truncated" if exc.truncated else "wandb_json", msg)
            return
        metrics, dropped = numeric_items(payload)
        self.res.bump("non_numeric_values", dropped)
        self.res.bump("non_finite_values", sum(1 for v in metrics.values() if not math.isfinite(v)))
        self.res.serializations.add("wandb-json")
        self.res.bump(f"wandb_kind/{kind}")
        if kind == "train":
            step = int(metrics.setdefault("trainer/global_step", float(step)))
            self._anchor(step)
            self._record(step, metrics, self.ts, explicit=True)
        elif kind == "eval":
            self.res.evals.update(step, metrics)
        else:  # startup and any future kind: kept, never a training step
            self.res.startup.update(metrics)

    def _dict_start(self, msg: str) -> None:
        if msg.rstrip().endswith("}"):
            self._dict_payload(msg)
        else:
            self.block = [msg]

    def _continue_block(self, msg: str) -> bool:
        """pformat continuation lines start with whitespace then a quote; anything else ends it."""
        assert self.block is not None
        if msg[:1].isspace() and msg.lstrip().startswith("'"):
            self.block.append(msg)
            if msg.rstrip().endswith("}"):
                text, self.block = "\n".join(self.block), None
                self._dict_payload(text, console=True)
            elif len(self.block) > MAX_BLOCK_LINES:
                self.res.malformed("dict_block_too_long", self.block[0])
                self.block = None
            return True
        self.res.malformed("dict_block_unterminated", self.block[0])
        self.block = None
        return False

    def _dict_payload(self, text: str, console: bool = False) -> None:
        try:
            payload = decode_python_dict(text)
        except PayloadError as exc:
            self.res.malformed("dict_truncated" if exc.truncated else "dict_literal", text)
            return
        metrics, dropped = numeric_items(payload)
        if not metrics or dropped * 2 > len(metrics):
            self.res.bump("ignored_dicts")  # a rollout dump or config dict, not metrics
            return
        self.res.serializations.add("console-dict" if console else "python-dict")
        self.res.bump("shape/python_dict")
        if "trainer/global_step" in metrics:
            step = int(metrics["trainer/global_step"])
            self._anchor(step)
            self._record(step, metrics, self.ts, explicit=True)
        else:
            self._record(self.current_step(), metrics, self.ts, explicit=False)

    def _timer(self, msg: str) -> None:
        m = TIMER_RE.match(msg)
        if not m:
            return
        what, name, cost = m.groups()
        self.res.bump("shape/timer")
        if name == "step":
            if what == "Started":
                self._close_open_step()  # a step that never finished (job killed mid-step)
                self.open_step = self.last_finished + 1
                if self.ts is not None:
                    self.pending[T_START] = self.ts
                return
            step = self.open_step if self.open_step is not None else self.last_finished + 1
            metrics, self.pending = self.pending, {}
            self.open_step, self.last_finished = None, step
            if self.ts is not None:
                metrics[T_END] = self.ts
            if cost is not None:
                metrics["timing/step"] = float(cost)
            self._record(step, metrics, None, explicit=False)
        elif what == "Finished" and cost is not None:
            self._record(self.current_step(), {f"timing/{name}": float(cost)}, None, explicit=False)

    def _key_values(self, msg: str) -> None:
        m = GEN_REWARDS_RE.search(msg)
        if m:
            metrics = {"generation/avg_reward": float(m.group(1)), "generation/success_rate": float(m.group(2))}
        else:
            metrics = {}
            for part in msg.split(", "):
                key, sep, value = part.partition(": ")
                key = key.strip()
                if not sep or not ("/" in key or key.startswith("avg_")) or " " in key:
                    return  # not a pure "key: number" line (rollout text mentioning a reward)
                try:
                    metrics[key] = float(value)
                except ValueError:
                    return
        self.res.bump("shape/key_values")
        self._record(self.current_step(), metrics, None, explicit=False)

    def _close_open_step(self) -> None:
        if self.open_step is not None:
            step, metrics, self.pending = self.open_step, self.pending, {}
            self.open_step, self.last_finished = None, step
            self._record(step, metrics, None, explicit=False)

    def finish(self) -> LogFileResult:
        self._close_open_step()
        if self.block is not None:
            self.res.malformed("dict_truncated", self.block[0])
            self.block = None
        for step, metrics in self.batch.per_step_metrics():
            self._record(step, metrics, None, explicit=False)
        return self.res


def parse_log_file(path: Path | str) -> LogFileResult:
    """Parse one log file from disk, streaming (bad bytes replaced, never fatal)."""
    path = Path(path)
    parser = LogFileParser(path.name)
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        for line in fh:
            parser.feed(line)
    return parser.finish()
