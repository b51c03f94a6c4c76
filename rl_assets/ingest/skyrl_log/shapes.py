"""Reading the payload of one metric-bearing line: WANDB_MIRROR JSON, python / console dicts,
"key: number" lines and the generation-reward line. Which STEP the metrics belong to is not
decided here: a shape hands them to the parser's ``_explicit`` (numbered) or ``_place`` (not).

A mixin of LogFileParser; it uses the parser's ``res``, ``lineno``, ``block`` and ``ts``.
"""

from __future__ import annotations

import math
import re

from rl_assets.ingest.training_logs.payloads import PayloadError, decode_json_object, decode_python_dict, numeric_items
from rl_assets.ingest.training_logs.result import LogFileResult, decimals_tolerance

WANDB_RE = re.compile(r"WANDB_MIRROR kind=(\w+) step=(-?\d+) metrics=(.*)$")
GEN_REWARDS_RE = re.compile(r"Generation rewards - Avg: ([-\d.eE+]+|nan), Success rate: ([-\d.eE+]+|nan)")
# CTU-Agent fork's in-training eval (trainer.py eval(): f"[Eval Step {self.total_steps}] Eval rewards - Avg:
# {avg:.3f}, Success: {rate:.3f}"). Both values are printed with three decimals, so a value with fewer
# digits at the end of the line is a line cut mid-number, never a number to read.
_EVAL_NUMBER = r"(-?\d+\.\d{3}|nan|-?inf)"
EVAL_ROUND_RE = re.compile(rf"\[Eval Step (\d+)\] Eval rewards - Avg: {_EVAL_NUMBER}, Success: {_EVAL_NUMBER}\s*$")
# The fork's own W&B keys for the same two numbers. Avg is the mean eval reward (the task outcome, what
# upstream SkyRL calls eval/all/avg_score); Success is the share of eval rollouts with reward > 0, which
# equals Avg only while the reward is 0/1 -- kept, never used as the outcome.
EVAL_AVG_KEY, EVAL_SUCCESS_KEY = "eval/instant_avg_reward", "eval/instant_success_rate"
MAX_BLOCK_LINES = 5000  # a console dict block longer than this is not a metrics block


class PayloadLines:
    """Line-shape readers shared by LogFileParser (see the module docstring)."""

    # the parser's state and step placement, which these readers use (LogFileParser sets and defines them)
    res: LogFileResult
    lineno: int
    block: list[str] | None
    in_eval: bool
    eval_printed: bool

    def _explicit(self, step: int, metrics: dict[str, float], shape: str, n: int = 1) -> None:
        raise NotImplementedError

    def _place(self, metrics: dict[str, float], shape: str, n: int = 1) -> None:
        raise NotImplementedError

    def _place_eval_round(self, metrics: dict[str, float], shape: str = "eval_round", n: int = 1) -> None:
        raise NotImplementedError

    def _eval_batch(self, avg: float, success: float, msg: str) -> None:
        raise NotImplementedError

    def _wandb(self, msg: str) -> None:
        m = WANDB_RE.search(msg)
        if not m:
            self.res.malformed("wandb_prefix", msg, self.lineno)
            return
        kind, step = m.group(1), int(m.group(2))
        try:
            payload = decode_json_object(m.group(3))
        except PayloadError as exc:
            self.res.malformed("wandb_truncated" if exc.truncated else "wandb_json", msg, self.lineno)
            return
        metrics, dropped = numeric_items(payload)
        self.res.bump("non_numeric_values", dropped)
        self.res.bump("non_finite_values", sum(1 for v in metrics.values() if not math.isfinite(v)))
        self.res.serializations.add("wandb-json")
        self.res.bump(f"wandb_kind/{kind}")
        if kind == "train":
            self.res.parsed("wandb_mirror")
            self._explicit(int(metrics.setdefault("trainer/global_step", float(step))), metrics, "wandb_mirror")
            return
        # eval, startup and any future kind: kept in ParsedLogs.evals / .startup, never a training step;
        # no step row holds their values, so the ledger counts them as skips of their kind, not parses
        self.res.ignored(f"wandb_{kind}_record")
        if kind == "eval":
            self.res.evals.update(step, metrics)
        else:
            self.res.startup.update(metrics)

    def _dict_start(self, msg: str) -> None:
        if msg.rstrip().endswith("}"):
            self._dict_payload(msg, 1)
        else:
            self.block = [msg]

    def _end_block(self, reason: str) -> None:
        assert self.block is not None
        self.res.malformed(reason, self.block[0], self.lineno - len(self.block), n=len(self.block))
        self.block = None

    def _continue_block(self, msg: str) -> bool:
        """pformat continuation lines start with whitespace then a quote; anything else ends it."""
        assert self.block is not None
        if msg[:1].isspace() and msg.lstrip().startswith("'"):
            self.block.append(msg)
            if msg.rstrip().endswith("}"):
                text, n, self.block = "\n".join(self.block), len(self.block), None
                self._dict_payload(text, n, console=True)
            elif len(self.block) > MAX_BLOCK_LINES:
                self._end_block("dict_block_too_long")
            return True
        self._end_block("dict_block_unterminated")
        return False

    def _dict_payload(self, text: str, n: int, console: bool = False) -> None:
        try:
            payload = decode_python_dict(text)
        except PayloadError as exc:
            self.res.malformed("dict_truncated" if exc.truncated else "dict_literal", text, self.lineno, n=n)
            return
        metrics, dropped = numeric_items(payload)
        if not metrics or dropped * 2 > len(metrics):
            self.res.ignored("non_metric_dict", n)  # a rollout dump or config dict, not metrics
            return
        self.res.serializations.add("console-dict" if console else "python-dict")
        if "trainer/global_step" in metrics:
            self.res.parsed("metrics_dict", n)
            self._explicit(int(metrics["trainer/global_step"]), metrics, "metrics_dict", n)
        else:
            self._place(metrics, "metrics_dict", n)

    def _key_values(self, msg: str) -> None:
        m = GEN_REWARDS_RE.search(msg)
        if m and self.in_eval:  # one eval batch: the round's detail, or its only record (eval_batches.py)
            try:
                avg, success = float(m.group(1)), float(m.group(2))
            except ValueError:
                self.res.ignored("text")
                return
            self._tolerance(EVAL_AVG_KEY, m.group(1))
            self._tolerance(EVAL_SUCCESS_KEY, m.group(2))
            self._eval_batch(avg, success, msg)
            return
        if m:
            pairs = [("generation/avg_reward", m.group(1)), ("generation/success_rate", m.group(2))]
        else:
            pairs = []
            for part in msg.split(", "):
                key, sep, value = part.partition(": ")
                key = key.strip()
                if not sep or not ("/" in key or key.startswith("avg_")) or " " in key:
                    self.res.ignored("text")  # not a pure "key: number" line (rollout text mentioning a reward)
                    return
                pairs.append((key, value))
        try:
            metrics = {k: float(v) for k, v in pairs}
        except ValueError:
            self.res.ignored("text")
            return
        for k, v in pairs:
            self._tolerance(k, v)
        self._place(metrics, "key_values")

    def _eval_round_line(self, msg: str) -> None:
        """``[Eval Step N] Eval rewards - Avg: x, Success: y``. N is the fork's W&B call counter
        (``self.total_steps``: 7, 109, 309 ... in run 022o7j60), neither the training step nor the
        eval round, so it is not used: the parser places the round by where it is printed."""
        self.eval_printed = True  # even cut, the build prints its rounds: the batch lines never stand in
        m = EVAL_ROUND_RE.search(msg)
        if not m:
            self.res.malformed("eval_round_line", msg, self.lineno)  # cut or reworded: named, never guessed
            return
        printed = {EVAL_AVG_KEY: m.group(2), EVAL_SUCCESS_KEY: m.group(3)}
        for k, v in printed.items():
            self._tolerance(k, v)
        self._place_eval_round({k: float(v) for k, v in printed.items()})

    def _tolerance(self, key: str, printed: str) -> None:
        tol = self.res.printed_tolerance
        # a timer's printed cost and the value W&B got are two clock reads around the same block:
        # they may differ by one printed unit, not only by the rounding half-unit
        unit = 2.0 if key.startswith("timing/") else 1.0
        tol[key] = max(tol.get(key, 0.0), unit * decimals_tolerance(printed))
