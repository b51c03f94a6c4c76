"""verl console lines -> per-step metrics, with the SkyRL reader's line ledger (docs/q2.md, "verl").

verl's console logger prints one line per step: ``step:12 - critic/score/mean:-1.0 - actor/entropy:
np.float64(0.0068) - …`` (numpy 2 prints ``np.float64(x)``; older verl printed ``%.3f``), often
behind a Ray prefix ``(TaskRunner pid=1)`` and ANSI colours, sometimes as ``step:12`` followed by
one `` - key:value`` line per key. ``pprint`` writes the "Initial/Final validation metrics" dict
over several quoted lines; its values fill only keys the step lines did not print.

A line cut at a fixed width (a terminal or log collector's limit) keeps its step and every
complete pair; its last pair is dropped and counted (``pairs_dropped/cut_at_width``), because a
value cut to "0.12" from "0.1234" would read as a real number. A cut is recognised when several
step lines share the file's longest length and do not all end with the same key (a fixed-format
writer ends every line with the same key at the same length; a cut ends them wherever it falls).
"""

from __future__ import annotations

import math
import re

from rl_assets.ingest.training_logs.result import LogFileResult, check_lines, decimals_tolerance

SEP = " - "
_BLOCK_START = re.compile(r"(Initial|Final) validation metrics")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_NP_OPEN = re.compile(r"np\.\w+\(")  # the opening of a numpy 2 repr, np.float64(
_RAY_PREFIX = re.compile(r"^(?:\x1b\[[\d;]*m)*\([^)]*\)(?:\x1b\[[\d;]*m)*\s*")
_BLOCK_PAIR = re.compile(r"'([^']+)':\s*(?:np\.\w+\()?(-?(?:[\d.]+(?:[eE][-+]?\d+)?|nan|inf))\)?")
MAX_BLOCK_LINES = 400


def number(text: str) -> float | None:
    """``0.5``, ``-1e-06``, ``nan``, ``np.float64(0.5)``, ``np.int64(3)``, ``tensor(0.5, device=…)``."""
    try:
        return float(text)
    except ValueError:
        pass
    open_at = text.find("(")
    if open_at > 0 and text.endswith(")"):
        try:
            return float(text[open_at + 1 : -1].split(",", 1)[0])
        except ValueError:
            return None
    return None


def unwrap_numpy(body: str) -> tuple[str, bool]:
    """``a:np.float64(0.5) - b:np.int64(2)`` -> ``a:0.5 - b:2`` with C-level replaces (a per-value
    regex costs more than the rest of the parse). Returns (body, cut): cut when the last value is a
    numpy repr the line ended inside of ("np.float64(0.12"), whose digits must not be read."""
    last_np = body.rfind("np.")
    cut = last_np > body.rfind(")")
    tail_wrapped = last_np > body.rfind(SEP) and not cut
    body = body.replace("np.float64(", "")  # the common case by plain replace, the rest by regex
    if "np." in body:
        body = _NP_OPEN.sub("", body)
    body = body.replace(") - ", " - ")  # keys end in ":", never in ") - "
    return (body[:-1] if tail_wrapped and body.endswith(")") else body), cut


def _step_at(line: str) -> int:
    """Where "step:" starts as a word (not inside "global_step:"), or -1."""
    at = line.find("step:")
    while at > 0 and (line[at - 1].isalnum() or line[at - 1] in "_/"):
        at = line.find("step:", at + 5)
    return at


class VerlConsoleParser:
    """Feed lines in file order; ``finish()`` returns the file's LogFileResult."""

    def __init__(self, name: str) -> None:
        self.res = LogFileResult(name=name)
        self.res.serializations.add("verl-console")
        self.step: int | None = None  # the step a " - key:value" continuation line belongs to
        self.ends: list[tuple[int, int, str | None]] = []  # per step line: (length, step, last key kept)
        self.block: list[str] | None = None  # lines of an open validation-metrics block
        self.block_text = ""  # the block's dict text, its pprint quotes removed
        self.block_kind = ""
        self.pending_initial: dict[str, float] | None = None
        self.last_line: dict[int, str] = {}  # the highest step's text, for the cross-check tolerance
        self.n_lines = self.n_text = self.n_blank = 0
        self.lines_of: dict[int, int] = {}  # step -> its step lines read so far (a restart prints it again)
        self.continuations: dict[int, int] = {}  # step -> its " - key:value" lines

    def feed(self, line: str, lineno: int) -> None:
        # hot path (millions of lines): plain counters here, folded into the ledger by finish()
        self.n_lines += 1
        line = line.rstrip("\r\n")
        if self.block is not None:
            self._block_line(line, lineno)
            return
        at = line.find("step:")
        if at > 0 and (line[at - 1].isalnum() or line[at - 1] in "_/"):
            at = _step_at(line)
        if at >= 0:
            self._step_line(line, at, lineno)
        elif self.step is not None and line.startswith(SEP) and ":" in line:
            text, cut = unwrap_numpy(line[len(SEP) :]) if "np." in line else (line[len(SEP) :], False)
            if cut:
                self.res.bump("pairs_dropped/unparseable_pair")
            else:
                self._pairs(self.step, [text], lineno, line)
            self.res.parsed("verl_continuation")
            self.continuations[self.step] = self.continuations.get(self.step, 0) + 1
        elif "validation metrics" in line and _BLOCK_START.search(line):
            self.block, self.block_kind = [], _BLOCK_START.search(line).group(1)
            self._block_line(line, lineno)
        elif line.strip():
            self.n_text += 1
        else:
            self.n_blank += 1

    def _step_line(self, line: str, at: int, lineno: int) -> None:
        body, cut = unwrap_numpy(line[at + 5 :]) if "np." in line else (line[at + 5 :], False)
        parts = body.split(SEP)
        if cut and len(parts) > 1:
            parts.pop()
            self.res.bump("pairs_dropped/unparseable_pair")
        head = parts[0].strip()
        if not parts[0][:1].isdigit():  # prose that says "step:" ("at step: 5"), not a metrics line
            self.n_text += 1
            return
        if not head.isdigit():
            self.res.malformed("verl_step_not_integer", line, lineno)
            return
        step = int(head)
        if step in self.lines_of and self.step != step:
            self._restarted(step)
        self.step = step
        self.lines_of[step] = self.lines_of.get(step, 0) + 1
        if self.pending_initial is not None:
            self._place_initial(step, parts)
        last = self._pairs(step, parts[1:], lineno, line)
        if cut:
            last = None  # the dropped pair ended the line
        if len(parts) > 1 or cut:
            self.ends.append((len(line), step, last))
        if not self.last_line or step >= max(self.last_line):
            self.last_line = {step: SEP.join(filter(None, (self.last_line.get(step), line)))}
        self.res.parsed("verl_step_line")

    def _restarted(self, step: int) -> None:
        """A step printed again after other steps: the job restarted from an earlier checkpoint. The
        newer line's values win key by key, and the older lines are counted as merged duplicates. Not
        the row whole: a resumed verl job re-validates its resume step G ("step:G - val-…" only) without
        re-running it, and G's training values must survive that; a re-run step prints every key again.
        (A cut older line still has its last pair dropped at the end: conservative, never a cut value.)"""
        self.res.superseded("verl_step_line", self.lines_of.pop(step))
        self.res.superseded("verl_continuation", self.continuations.pop(step, 0))
        self.res.bump("restarts_in_file")

    def _pairs(self, step: int, parts: list[str], lineno: int, line: str) -> str | None:
        """Store the parsable pairs; return the last pair's key, or None when it was dropped."""
        try:  # fast path: every pair complete (a line's values are C-level float() calls)
            metrics = {k: float(v) for k, _, v in (p.partition(":") for p in parts)}
            self.res.steps.update(step, metrics)
            return parts[-1].partition(":")[0] if parts else None
        except ValueError:
            pass
        metrics = {}
        key = None
        for part in parts:
            key, colon, value = part.partition(":")
            parsed = number(value) if colon else None
            if parsed is None:
                self.res.bump("pairs_dropped/unparseable_pair")
                if len(self.res.examples) < 5:
                    self.res.examples.append(f"{self.res.name}:{lineno}: pair dropped: {part[:120]}")
                key = None
                continue
            metrics[key] = parsed
        self.res.steps.update(step, metrics)
        return key

    def _block_line(self, line: str, lineno: int) -> None:
        self.block.append(line)
        body = _RAY_PREFIX.sub("", line).strip()
        # pprint wraps a long string as ('…' "…" '…'): join the quoted pieces back into one text
        quoted = body.startswith(("('", '("', "'", '"'))
        self.block_text += "".join(a or b for a, b in _QUOTED.findall(body)) if quoted else body
        done = body.endswith(("}", "}')", '}")'))
        if not done and len(self.block) < MAX_BLOCK_LINES:
            return
        full, n = self.block_text, len(self.block)
        self.block, self.block_text = None, ""
        values = {k: float(v) for k, v in _BLOCK_PAIR.findall(full)}
        if not done or not values:
            self.res.malformed("verl_validation_block", full[:200], lineno, n)
            return
        self.res.parsed("verl_validation_block", n)
        if self.block_kind == "Initial":
            self.pending_initial = values
        elif self.step is not None:
            self._fill(self.step, values)
        else:
            self.pending_initial = values

    def _place_initial(self, step: int, parts: list[str]) -> None:
        """verl validates at step G before training and logs it as "step:G - val-…"; the first
        training step is G+1. A step line that carries the block's keys is G; otherwise G = step-1."""
        keys = {p.partition(":")[0] for p in parts[1:]}
        values, self.pending_initial = self.pending_initial, None
        self._fill(step if keys & set(values) else max(step - 1, 0), values)

    def _fill(self, step: int, values: dict[str, float]) -> None:
        self.res.steps.update(step, {k: v for k, v in values.items() if math.isnan(self.res.steps.get(step, k))})

    def finish(self) -> LogFileResult:
        res = self.res
        res.bump("lines", self.n_lines)
        res.ignored("text", self.n_text)
        res.ignored("blank", self.n_blank)
        if self.block is not None:  # a block the file ended inside of
            res.malformed("verl_validation_block", "".join(self.block)[:200], None, len(self.block))
        if self.pending_initial is not None:
            self._fill(0, self.pending_initial)
        self._drop_cut_pairs()
        for text in self.last_line.values():
            for part in text.split(SEP)[1:]:
                key, _, value = part.partition(":")
                res.printed_tolerance[key] = decimals_tolerance(value.removeprefix("np.float64(").rstrip(")"))
        check_lines(res.name, res.counts)
        return res

    def _drop_cut_pairs(self) -> None:
        if len(self.ends) < 2:
            return
        width = max(e[0] for e in self.ends)
        at_width = [e for e in self.ends if e[0] == width]
        if len(at_width) < 2 or len({e[2] for e in at_width}) < 2:
            return
        for _, step, key in at_width:
            if key is not None:  # a last pair already dropped as unparseable was counted then
                self.res.steps.forget(step, key)
                self.res.bump("pairs_dropped/cut_at_width")


def parse_verl_lines(name: str, lines, cut_by=None) -> LogFileResult:
    """``cut_by(lines, result)``: a wrapper that ends the lines where the stream fails and records
    where in ``result.cut`` (files.lines_until_cut), so a cut file keeps its lines before the cut."""
    parser = VerlConsoleParser(name)
    if cut_by is not None:
        lines = cut_by(lines, parser.res)
    feed = parser.feed
    text = 0
    for lineno, line in enumerate(lines, 1):
        # most lines of a run (Ray workers, tqdm) are text: counted here without a call
        if (
            "step:" in line
            or parser.block is not None
            or line.startswith(SEP)
            or "validation metrics" in line
            or not line.strip()
        ):
            feed(line, lineno)
        else:
            text += 1
    parser.n_lines += text
    parser.n_text += text
    return parser.finish()
