"""Stream one SkyRL log file line by line into per-step metric rows (every shape of docs/formats.md).

Step attribution follows the trainer's real boundary (docs/q2.md "Step boundary"): a step is
everything from ``Started: 'step'`` through the metrics that follow its ``Finished: 'step'`` (the
policy dict, eval, up to ``[Step N] Logged``). The reward lines (``avg_raw_rewards: ...`` from
compute_advantages_and_returns, ``Generation rewards - ...``) are printed INSIDE the step, before
``Finished: 'step'``; the policy dict right AFTER it. Lines after ``[Step N] Logged`` and before
the next ``Started: 'step'`` belong to no step and are counted ignored (``outside_step``), as are
the per-set generation lines of an evaluation (``inside_eval``).

An evaluation's own result line (``[Eval Step N] Eval rewards - ...``) is a round of the trainer's
in-training eval: it belongs to the training step whose weights it evaluated -- the step that last
finished (or the open one), and step 0 for the eval before training -- and is kept in
``eval_rounds``, not in the step row (see ``_place_eval_round``). A build that prints no result line
has the round read from its per-batch lines, weighted by each batch's trajectory count (eval_batches.py).

An explicit step (``WANDB_MIRROR ... step=N`` / ``'trainer/global_step': N``) outranks the count;
``Resumed ... global_step_N`` and a loguru-prefixed generator ``Step N:`` marker re-anchor it. A
restart inside one file (a ``Resumed`` line, or explicit steps going back) starts a new attempt: a
step the new attempt writes replaces the killed attempt's row whole, never key by key.

Every line read is counted once: parsed (by shape), malformed (by reason, with file:line) or
ignored (by shape); ``finish`` checks the sum (result.check_lines).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from rl_assets.ingest.training_logs.result import T_END, T_START, LogAccountingError, LogFileResult, check_lines
from rl_assets.ingest.training_logs.store import StepStore
from rl_assets.ingest.training_logs.vllm import VLLM_RE

from .batch_errors import BatchErrors
from .clean import BadTimestamp, clean_line
from .eval_batches import EvalBatchRound, set_bar_total
from .shapes import EVAL_AVG_KEY, EVAL_SUCCESS_KEY, PayloadLines

TIMER_RE = re.compile(r"^(Started|Finished): '([\w.]+)'(?:, time cost: ([\d.eE+-]+)s)?")
STEP_MARKER_RE = re.compile(r"\bStep (\d+):")
BARE_MARKER_RE = re.compile(r"^Step (\d+):\s*$")
LOGGED_RE = re.compile(r"^\[Step (\d+)\] Logged\b")
RESUMED_RE = re.compile(r"[Rr]esum\w*\b.*\bglobal_step[_ =:]*(\d+)")
HEAD, OPEN, TAIL, BETWEEN = "head", "open", "tail", "between"  # where the reader is w.r.t. steps

__all__ = ["LogAccountingError", "LogFileParser", "LogFileResult", "T_END", "T_START", "parse_log_file"]


class LogFileParser(PayloadLines):
    """Feed lines with ``feed``; call ``finish`` once. Memory grows with steps, not with lines."""

    def __init__(self, name: str) -> None:
        self.res = LogFileResult(name=name)
        self.lineno = 0
        self.phase = HEAD
        self.last_finished = 0
        self.open_step: int | None = None
        self.ts: float | None = None  # last loguru time seen: lines without one inherit it
        self.block: list[str] | None = None
        self.batch = BatchErrors()
        self.marker_step: int | None = None
        self.last_explicit = 0
        self.pending: dict[str, float] = {}  # step-less metrics of the open step
        self.pending_lines: dict[str, int] = {}  # the parsed lines (by shape) those metrics came from
        # step -> the parsed lines (by shape) whose values its row holds: when a restart replaces the row
        # whole, those lines become merged duplicates in the ledger (newest wins, counted)
        self.step_lines: dict[int, dict[str, int]] = {}
        self.loose: list[tuple[dict[str, float], str, int]] = []  # metrics read outside any step
        self.in_eval = False
        self.eval_round_steps: set[int] = set()  # steps this file holds an eval round of (a re-eval supersedes)
        self.eval_batches = EvalBatchRound()  # the open eval's per-batch lines (builds with no result line)
        self.eval_printed = False  # the open eval printed its own result line: that line is the round
        self.attempt = 0
        self.attempt_of: dict[int, int] = {}  # step -> attempt that wrote its row
        self.just_finished: int | None = None  # the step a `Finished: 'step'` closed, until numbered

    def current_step(self) -> int:
        return self.open_step if self.open_step is not None else self.last_finished

    def _anchor(self, step: int) -> None:
        if self.open_step is not None:
            self.open_step = step
        else:
            self._resolve_loose(into=None)
            self.last_finished, self.phase = step, TAIL

    def _new_attempt(self) -> None:
        """Only an attempt that wrote a step can be superseded: a resumed file's own opening
        ("Resuming from global_step: 10", then "Resumed training from global_step 10") is one start."""
        if self.attempt in self.attempt_of.values():
            self.attempt += 1
            self.res.bump("restarts_in_file")

    def _record(
        self, step: int, metrics: dict[str, float], ts: float | None = None, lines: dict[str, int] | None = None
    ) -> None:
        if step <= 0:  # before the first training step: setup timers, WANDB step-0 records
            self.res.startup.update(metrics)  # kept for a reader of ParsedLogs.startup; no step row holds them
            for shape, n in (lines or {}).items():
                self.res.reached_no_step(shape, n, "before_first_step")
            return
        if self.attempt_of.get(step, self.attempt) != self.attempt:
            self.res.steps.drop(step)  # a restart re-ran this step: the killed attempt's row goes whole
            self.res.bump("steps_replaced_by_restart")
            for shape, n in self.step_lines.pop(step, {}).items():
                self.res.superseded(shape, n)
        self.attempt_of[step] = self.attempt
        if lines:
            held = self.step_lines.setdefault(step, {})
            for shape, n in lines.items():
                held[shape] = held.get(shape, 0) + n
        self.res.steps.update(step, metrics)
        # the metrics line is the step's end time only when no `Finished: 'step'` line gave one
        if ts is not None and math.isnan(self.res.steps.get(step, T_END)):
            self.res.steps.update(step, {T_END: ts})

    def _place(self, metrics: dict[str, float], shape: str, n: int = 1) -> None:
        """Un-numbered metrics go to the step the reader is in; outside any step they wait."""
        if self.in_eval and shape != "timer":
            self.res.ignored("inside_eval", n)  # per-eval-set generation lines are not the step's
        elif self.phase == OPEN:
            self.pending.update(metrics)
            self.res.parsed(shape, n)
            self.pending_lines[shape] = self.pending_lines.get(shape, 0) + n
        elif self.phase == TAIL or (self.phase == BETWEEN and shape == "timer"):
            # a step's post-work timers (save_checkpoints after `[Step N] Logged`) are that step's
            self._record(self.last_finished, metrics, lines={shape: n})
            self.res.parsed(shape, n)
        else:
            self.loose.append((metrics, shape, n))

    def _place_eval_round(self, metrics: dict[str, float], shape: str = "eval_round", n: int = 1) -> None:
        """One round of the in-training eval, at the training step whose weights it measured: the
        step that last finished (SkyRL evaluates after a step's update and logs the round at that
        global_step), the open step if it is printed inside one, and 0 before the first step -- the
        eval of the weights before any update, which SkyRL itself logs at global_step 0 (its dump
        folder is global_step_0_evals; verl logs its validation before training at step 0 too). That
        round is the baseline a later round is compared with, so it is kept, at step 0, not dropped.
        Kept apart from the step rows (``eval_rounds``): a resumed job re-evaluates its checkpoint
        step G without re-running it, and G's training row must survive that."""
        step = self.current_step()
        if step in self.eval_round_steps:  # the same weights evaluated again (a restart): newest wins
            self.res.superseded("eval_round")
        self.eval_round_steps.add(step)
        self.res.eval_rounds.update(step, metrics)
        self.res.parsed(shape, n)

    def _eval_batch(self, avg: float, success: float, msg: str) -> None:
        if self.eval_batches.closed:  # a later eval set of the same eval (Retail Validation / Test)
            self.res.ignored("inside_eval")
        else:  # counted when its round ends (_end_eval_round): scored, a named skip, or the printed round's
            self.eval_batches.add(avg, success, self.lineno, msg)

    def _eval_bar(self, msg: str) -> None:
        self.res.ignored("progress_bar")  # the bar holds no metric; its total is a batch's weight
        if msg.startswith("Evaluation Progress:"):
            if not self.eval_batches.closed:
                self._end_eval_round(set_bar_total(msg), "eval_round_progress_bar_unreadable")
        else:  # a bar whose total cannot be read leaves the next batch without a count (a named skip)
            self.eval_batches.see_bar(msg)

    def _end_eval_round(self, set_total: int | None, no_total: str = "eval_round_cut") -> None:
        """The main eval set ended (its Evaluation Progress bar, or the eval cut short): its batch
        lines become the round when no result line was printed, else they are that round's detail."""
        ended, self.eval_batches = self.eval_batches, EvalBatchRound(closed=True)
        n = len(ended.batches)
        if not n:
            return
        if self.eval_printed:  # a printed result line wins; the batches it summarises are not read twice
            self.res.ignored("eval_batches_of_printed_round", n)
            return
        means, why, named = ended.score(set_total, no_total)
        if means is None:
            assert named is not None
            self.res.malformed(why, named.line, named.lineno, n=n)  # never a guessed weight
            return
        self._place_eval_round(
            {EVAL_AVG_KEY: means["avg"], EVAL_SUCCESS_KEY: means["success"]}, "eval_round_batches", n
        )

    def _resolve_loose(self, into: dict[str, float] | None) -> None:
        """Loose metrics join a step whose Started line was never seen (``into``); before the first
        step they are startup values; otherwise they are outside every step."""
        for metrics, shape, n in self.loose:
            if into is not None:
                into.update(metrics)
                self.res.parsed(shape, n)
                self.pending_lines[shape] = self.pending_lines.get(shape, 0) + n
            elif self.phase == HEAD:
                self.res.startup.update(metrics)
                self.res.ignored("before_first_step", n)  # setup values: no step row holds them
            else:
                self.res.ignored("outside_step", n)
        self.loose = []

    def feed(self, raw: str) -> None:
        res = self.res
        res.bump("lines")
        self.lineno += 1
        try:
            msg, ts, _where = clean_line(raw)
        except BadTimestamp as exc:
            if self.block is not None:  # the block it interrupted is cut short, as by any other line
                self._end_block("dict_block_unterminated")
            res.malformed("bad_timestamp", f"{exc}: {raw.strip()}", self.lineno)
            return
        if ts is not None:
            self.ts = ts
            res.first_ts = ts if res.first_ts is None else res.first_ts
            res.last_ts = ts
        if self.block is not None and self._continue_block(msg):
            return
        if "WANDB_MIRROR" in msg:
            self._wandb(msg)
        elif msg.startswith("{'"):
            self._dict_start(msg)
        elif msg.startswith(("Started: '", "Finished: '")):
            self._timer(msg)
        elif "Engine " in msg and "throughput" in msg and (m := VLLM_RE.search(msg)):
            res.vllm.add(m, fallback_key=str(self.ts))
            res.parsed("vllm")
        elif "Exception breakdown:" in msg or "Batch generation complete:" in msg:
            if self.batch.feed(msg, self._batch_step()):
                res.parsed("batch_errors")
            else:
                res.malformed("batch_error_line", msg, self.lineno)
        elif msg.startswith("[Step ") and (m := LOGGED_RE.match(msg)):
            res.parsed("step_logged")  # the trainer's own end of the step's record
            if self.open_step is None:
                self.phase = BETWEEN
        elif "Step " in msg and (m := (STEP_MARKER_RE.search(msg) if ts is not None else BARE_MARKER_RE.match(msg))):
            res.parsed("step_marker")
            self.marker_step = int(m.group(1))
            self._anchor(self.marker_step)
        elif "global_step" in msg and (m := RESUMED_RE.search(msg)):
            res.parsed("resumed")
            self._resumed(int(m.group(1)))
        elif "] Eval rewards - " in msg:
            self._eval_round_line(msg)
        elif self.in_eval and ("Generating Trajectories" in msg or msg.startswith("Evaluation Progress:")):
            self._eval_bar(msg)
        elif "avg_" in msg or "reward/" in msg or "Generation rewards" in msg:
            self._key_values(msg)
        else:  # most lines of a real log (rollout text, tqdm frames): counted inline, it is the hot path
            counts = res.counts
            counts["ignored/text"] = counts.get("ignored/text", 0) + 1

    def _resumed(self, step: int) -> None:
        """A restart in the same file: the open step (if any) was killed; numbering resumes at step."""
        self._close_open_step(killed=True)
        self._resolve_loose(into=None)
        self._new_attempt()
        # what follows until the next Started: 'step' is the restarted job's setup, not step N's
        self.last_finished, self.phase = step, HEAD

    def _batch_step(self) -> int:
        return self.marker_step if self.marker_step is not None else max(self.current_step(), 1)

    def _explicit(self, step: int, metrics: dict[str, float], shape: str, n: int = 1) -> None:
        """A numbered record. Right after `Finished: 'step'` it names the step that just finished:
        if the count disagrees (a resumed log without a Resumed line), the row moves to this number."""
        if step <= self.last_explicit and step > 0:
            self.res.bump("repeated_steps_in_file")
            self._new_attempt()  # the same or an earlier step printed again: a re-run
        self.last_explicit = step
        finished, self.just_finished = self.just_finished, None
        if finished is not None and self.open_step is None and step not in (finished, 0):
            self.res.bump("steps_renumbered")
            self._record(step, self.res.steps.drop(finished), lines=self.step_lines.pop(finished, None))
        self._anchor(step)
        self._record(step, metrics, self.ts, lines={shape: n})

    def _timer(self, msg: str) -> None:
        m = TIMER_RE.match(msg)
        if not m:
            self.res.ignored("text")
            return
        what, name, cost = m.groups()
        if name == "eval":
            self._end_eval_round(None)  # a round its set's bar did not close is cut (an eval left mid-way)
            self.in_eval = what == "Started"
            self.eval_batches, self.eval_printed = EvalBatchRound(), False
        if name != "step":
            if what == "Finished" and cost is not None:
                self._tolerance(f"timing/{name}", cost)
                self._place({f"timing/{name}": float(cost)}, "timer")
            else:
                self.res.parsed("timer")
            return
        self.res.parsed("timer")
        if what == "Started":
            self._end_eval_round(None)  # an eval whose Finished line never came
            self._close_open_step(killed=True)  # a step that never finished (job killed mid-step)
            self._resolve_loose(into=None)
            self.open_step, self.phase, self.in_eval = self.last_finished + 1, OPEN, False
            self.just_finished = None
            if self.ts is not None:
                self.pending[T_START] = self.ts
            self.pending_lines = {"timer": 1}  # the Started line: the step's start time
            return
        step = self.open_step if self.open_step is not None else self.last_finished + 1
        metrics, self.pending = self.pending, {}
        if self.open_step is None:  # its Started line was never seen: what came before is its own
            self._resolve_loose(into=metrics)
        self.open_step, self.last_finished, self.phase = None, step, TAIL
        if self.ts is not None:
            metrics[T_END] = self.ts
        if cost is not None:
            metrics["timing/step"] = float(cost)
            self._tolerance("timing/step", cost)
        self.just_finished = step
        lines, self.pending_lines = self.pending_lines, {}
        lines["timer"] = lines.get("timer", 0) + 1  # the Finished line: its end time and cost
        self._record(step, metrics, lines=lines)

    def _close_open_step(self, killed: bool = False) -> None:
        if self.open_step is not None:
            step, metrics, self.pending = self.open_step, self.pending, {}
            lines, self.pending_lines = self.pending_lines, {}
            self.open_step, self.last_finished, self.phase = None, step, TAIL
            self.res.bump("unfinished_steps" if killed else "unfinished_last_step")
            self._record(step, metrics, lines=lines)

    def finish(self) -> LogFileResult:
        self._end_eval_round(None)
        self._close_open_step()
        self._resolve_loose(into=None)
        if self.block is not None:
            self.res.malformed("dict_truncated", self.block[0], self.lineno - len(self.block) + 1, n=len(self.block))
            self.block = None
        for step, metrics in self.batch.per_step_metrics():
            self._record(step, metrics)
        if not self.res.steps.row_of:
            self._no_step_reached()
        check_lines(self.res.name, self.res.counts)
        return self.res

    def _no_step_reached(self) -> None:
        """A file that yields no training step (another trainer's console dicts beside SkyRL logs, a
        job killed before its first step): whatever its lines held reaches no step, so none of them is
        counted parsed; they are skips of their own reason."""
        counts = self.res.counts
        held = [k for k in counts if k.startswith("parsed/") or k == "ignored/before_first_step"]
        self.res.ignored("no_training_step_in_file", sum(counts.pop(k) for k in held))
        self.res.eval_rounds = StepStore()  # an eval round of a run that never trained reaches no table


def parse_lines(name: str, lines) -> LogFileResult:
    """Parse an iterable of text lines (from any opener: plain, .gz, .zst)."""
    parser = LogFileParser(name)
    for line in lines:
        parser.feed(line)
    return parser.finish()


def parse_log_file(path: Path | str) -> LogFileResult:
    """Parse one plain log file from disk, streaming (bad bytes replaced, never fatal)."""
    path = Path(path)
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        return parse_lines(path.name, fh)
