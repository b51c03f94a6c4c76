"""What one log file gave: per-step metrics plus the line ledger (every line read is parsed into a
step, malformed for a reason, ignored for its shape, or a duplicate a newer record of the same step
replaced -- docs/q2.md "Conservation"), and where the file could not be read past (``cut``).

Kept apart from the parser so the sidecar readers (trainer_log.jsonl) fill the same result and the
same ledger without importing the line state machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .store import StepStore
from .vllm import VllmAccumulator

T_END, T_START = "__time_end", "__time_start"  # reserved store keys: epoch seconds of the step
MAX_EXAMPLES = 5
_PARSED: dict[str, str] = {}  # shape -> counts key, built once (these run on every line)
_IGNORED: dict[str, str] = {}


class LogAccountingError(AssertionError):
    """A line or file of the training logs was neither used, counted malformed, nor counted ignored:
    a bug in the parser, never the user's input; raised so it cannot pass silently."""


@dataclass
class LogFileResult:
    name: str
    first_ts: float | None = None
    last_ts: float | None = None
    steps: StepStore = field(default_factory=StepStore)
    evals: StepStore = field(default_factory=StepStore)
    startup: dict[str, float] = field(default_factory=dict)
    vllm: VllmAccumulator = field(default_factory=VllmAccumulator)
    counts: dict[str, int] = field(default_factory=dict)  # lines, parsed/*, malformed/*, ignored/*, ...
    examples: list[str] = field(default_factory=list)  # first malformed lines as "file:line: reason: text"
    serializations: set[str] = field(default_factory=set)  # wandb-json / python-dict / console
    # half the last printed digit of each text-parsed key ("0.384" -> 0.0005): how far the log's
    # rounding alone may put it from an independent record of the same number
    printed_tolerance: dict[str, float] = field(default_factory=dict)
    # where reading stopped before the file's end (a bad record checksum, a cut .gz, a cap):
    # {"reason", "offset", "unit", "unread"}; what was read before it is kept
    cut: dict | None = None

    def bump(self, key: str, n: int = 1) -> None:
        if n:
            self.counts[key] = self.counts.get(key, 0) + n

    def parsed(self, shape: str, n: int = 1) -> None:
        self.bump(_PARSED.get(shape) or _PARSED.setdefault(shape, f"parsed/{shape}"), n)

    def ignored(self, shape: str, n: int = 1) -> None:
        self.bump(_IGNORED.get(shape) or _IGNORED.setdefault(shape, f"ignored/{shape}"), n)

    def superseded(self, shape: str, n: int = 1) -> None:
        """``n`` records already counted parsed as ``shape`` were replaced whole by a newer record of
        the same step (a restart logged in the same file): they move to the duplicates."""
        self.bump(f"parsed/{shape}", -n)
        self.bump(f"duplicate/{shape}", n)

    def reached_no_step(self, shape: str, n: int, reason: str) -> None:
        """``n`` lines already counted parsed as ``shape`` whose values turned out to reach no step row
        (a step-0 record, setup values before the first step): skips of ``reason``, not parses."""
        self.bump(f"parsed/{shape}", -n)
        self.ignored(reason, n)

    def malformed(self, reason: str, line: str, lineno: int | None = None, n: int = 1) -> None:
        self.bump("malformed", n)
        self.bump(f"malformed/{reason}", n)
        if len(self.examples) < MAX_EXAMPLES:
            where = f"{self.name}:{lineno}" if lineno is not None else self.name
            self.examples.append(f"{where}: {reason}: {line[:200]}")


def line_ledger(counts: dict[str, int]) -> dict:
    """{read, parsed: {shape: n}, malformed: {reason: n}, ignored: {shape: n}, duplicate: {shape: n}}
    from a counts dict."""

    def group(prefix: str) -> dict[str, int]:
        return {k.split("/", 1)[1]: v for k, v in sorted(counts.items()) if k.startswith(prefix + "/") and v}

    return {
        "read": counts.get("lines", 0),
        "parsed": group("parsed"),
        "malformed": group("malformed"),
        "ignored": group("ignored"),
        "duplicate": group("duplicate"),
    }


def check_lines(name: str, counts: dict[str, int]) -> dict:
    """The line conservation law; raises LogAccountingError naming the file when it does not hold."""
    led = line_ledger(counts)
    parts = {k: sum(led[k].values()) for k in ("parsed", "malformed", "ignored", "duplicate")}
    if sum(parts.values()) != led["read"] or any(v < 0 for v in parts.values()):
        raise LogAccountingError(
            f"{name}: read {led['read']} lines but accounted for {sum(parts.values())} "
            f"({', '.join(f'{k} {v}' for k, v in parts.items())})"
        )
    return led


def decimals_tolerance(text: str) -> float:
    """Half a unit of the last printed digit: "0.384" -> 0.0005, "1127.13" -> 0.005, "3" -> 0.5."""
    text = text.strip().lower()
    if "e" in text or "nan" in text or "inf" in text:
        return 0.0
    _, dot, frac = text.partition(".")
    return 0.5 * 10.0 ** -(len(frac) if dot else 0)


def non_finite_ledger(results: list[LogFileResult]) -> dict:
    """{metric: {"nan"|"inf"|"-inf": n}} over every file's step values as read (docs/q2.md
    "Non-finite values"): named per metric, never silently taken as a number."""
    out: dict[str, dict[str, int]] = {}
    for res in results:
        for key, kinds in res.steps.non_finite.items():
            per = out.setdefault(key, {})
            for kind, n in kinds.items():
                per[kind] = per.get(kind, 0) + n
    return dict(sorted(out.items()))
