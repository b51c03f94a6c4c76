"""Which files under training_logs/ are read, in what order, and why the others are not.

Every file found is either read (a chain log, a trainer_log.jsonl, a wandb-summary.json) or listed
as not read with a reason -- files found = files read + files not read (docs/q2.md "Conservation").
What the ledger cannot balance is a ``failure``: a file read only up to a corrupt record, a cut
compressed stream or a cap (``lines_until_cut``), a file unreadable whole, a file of another
trainer's format this folder's reader did not read. Failures turn the accounting check red.
Rotated logs (``train.log.1``) and compressed logs (``.gz``; ``.zst`` when the ``zstandard``
package is installed, else listed as not read with that reason) are chain logs like any other.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .result import LogAccountingError

LOG_SUFFIXES = (".out", ".log", ".err")
ROTATION_RE = re.compile(r"^(?P<base>.+?\.(?:out|log|err))(?:\.(?P<n>\d+))?(?P<comp>\.gz|\.zst)?$")
JSONL_NAMES = ("trainer_log.jsonl",)
SUMMARY_NAMES = ("wandb-summary.json",)


@dataclass
class Discovered:
    logs: list[Path] = field(default_factory=list)
    jsonl: list[Path] = field(default_factory=list)
    summaries: list[Path] = field(default_factory=list)
    not_read: dict[str, str] = field(default_factory=dict)  # relative path -> reason
    found: int = 0
    failures: list[dict] = field(default_factory=list)  # {"file", "reason", ...}: what the check fails on

    def fail(self, file: str, reason: str, **where) -> None:
        self.failures.append({"file": file, "reason": reason, **where})

    def unreadable(self, path: Path, rel: str, exc: BaseException) -> None:
        """A file no line of which could be read: not read, and a failure (never a silent skip)."""
        self.logs = [p for p in self.logs if p != path]
        self.not_read[rel] = f"unreadable: {type(exc).__name__}: {str(exc)[:120]}"
        self.fail(rel, self.not_read[rel], offset=0, unit="byte")

    def check(self) -> dict:
        """files found = files read + files not read, or LogAccountingError."""
        read = len(self.logs) + len(self.jsonl) + len(self.summaries)
        if read + len(self.not_read) != self.found:
            raise LogAccountingError(
                f"training logs: found {self.found} files, read {read}, listed {len(self.not_read)} as not read"
            )
        reasons: dict[str, int] = {}
        for why in self.not_read.values():
            reasons[why] = reasons.get(why, 0) + 1
        return {
            "found": self.found,
            "read": read,
            "not_read": len(self.not_read),
            "not_read_by_reason": reasons,
            "not_read_files": dict(sorted(self.not_read.items())[:50]),
            "failures": self.failures[:50],
            "n_failures": len(self.failures),
        }


def _zstd_available() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


def discover(folder: Path) -> Discovered:
    """Classify every regular file under ``folder`` (or the one file given)."""
    out = Discovered()
    if folder.is_file():
        paths, base = [folder], folder.parent
    else:
        paths, base = sorted(p for p in folder.rglob("*") if p.is_file()), folder
    zstd = None
    for p in paths:
        out.found += 1
        rel = str(p.relative_to(base))
        m = ROTATION_RE.match(p.name)
        if p.name in JSONL_NAMES:
            out.jsonl.append(p)
        elif p.name in SUMMARY_NAMES:
            out.summaries.append(p)
        elif m and m.group("comp") == ".zst":
            zstd = _zstd_available() if zstd is None else zstd
            if zstd:
                out.logs.append(p)
            else:  # a log whose steps are missing from the table: listed, and a failure of the ledger
                out.not_read[rel] = "zstd-compressed log; the zstandard package is not installed"
                out.fail(rel, out.not_read[rel] + " (pip install zstandard)", offset=0, unit="byte")
        elif m or p.suffix in LOG_SUFFIXES:
            out.logs.append(p)
        else:
            out.not_read[rel] = f"not a training log ({p.suffix or 'no suffix'})"
    return out


# What one training-log file may expand to: a 1 MB .gz of one endless line or of bare newlines
# would otherwise take gigabytes of memory or many CPU-minutes. Decompressed bytes are capped at
# MAX_RATIO x the compressed size + MAX_SLACK_BYTES (at most MAX_BYTES): real logs compress 5-20x.
MAX_RATIO = 100
MAX_SLACK_BYTES = 64 << 20
MAX_BYTES = 4 << 30
MAX_LINES = 20_000_000  # per compressed file (a plain file is bounded by its size)


class LogTooLarge(ValueError):
    """A training-log file past the decompression cap; the message names the file and the cap.
    A ValueError, so the reader lists the file as not read with this reason."""


class _CappedRaw(io.RawIOBase):
    """Decompressed bytes of `inner`, failing once more than `limit` have come out."""

    def __init__(self, inner, path: Path, limit: int):
        self.inner, self.path, self.limit, self.total = inner, path, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.inner.readinto(buffer)
        self.total += n or 0
        if self.total > self.limit:
            raise LogTooLarge(
                f"{self.path.name}: decompresses to more than {self.limit} bytes (cap: {MAX_RATIO}x its "
                f"{self.path.stat().st_size} compressed bytes + {MAX_SLACK_BYTES >> 20} MiB); not read"
            )
        return n

    def close(self) -> None:
        self.inner.close()
        super().close()


class _CappedText(io.TextIOWrapper):
    """A text stream that fails at its MAX_LINES + 1st line, naming the file."""

    def __init__(self, buffer, path: Path):
        super().__init__(buffer, encoding="utf-8", errors="replace", newline="")
        self._path, self._lines = path, 0

    def _counted(self, line: str) -> str:
        self._lines += 1
        if self._lines > MAX_LINES:
            raise LogTooLarge(f"{self._path.name}: more than {MAX_LINES} lines (the per-file cap); not read")
        return line

    def __next__(self) -> str:
        return self._counted(super().__next__())

    def readline(self, size: int = -1) -> str:
        line = super().readline(size)
        return self._counted(line) if line else line


def open_text(path: Path):
    """A text stream over a plain, .gz or .zst log (bad bytes replaced, line endings kept), capped in
    decompressed bytes and in lines: past a cap, reading raises LogTooLarge naming the file."""
    if path.name.endswith((".gz", ".zst")):
        if path.name.endswith(".gz"):
            inner = gzip.open(path, "rb")
        else:
            import zstandard

            inner = zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
        limit = min(MAX_BYTES, MAX_RATIO * path.stat().st_size + MAX_SLACK_BYTES)
        return _CappedText(io.BufferedReader(_CappedRaw(inner, path, limit)), path)
    # A plain file holds what its size says: the byte cap is checked once, and its lines are read
    # without the per-line count (that wrapper costs about a quarter of the verl reader's time).
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise LogTooLarge(f"{path.name}: {size} bytes, more than the {MAX_BYTES} byte cap per log file; not read")
    return open(path, encoding="utf-8", errors="replace", newline="")


STREAM_ERRORS = (OSError, EOFError, ValueError, zlib.error)  # a cut .gz/.zst member, a bad byte run, a cap


def is_stream_error(exc: BaseException) -> bool:
    """A failure of the file's bytes, not of the reader: zstandard's ZstdError (a cut or corrupt .zst)
    is no OSError/ValueError, and is matched by name so the optional package is never imported here."""
    return isinstance(exc, STREAM_ERRORS) or type(exc).__name__ == "ZstdError"


def lines_until_cut(fh, result) -> Iterator[str]:
    """The lines of an open log stream until it ends or fails; a failure (a .gz cut short, corrupt
    compressed data, the decompression cap) ends the lines there and is recorded in ``result.cut``
    with the line and character offset it happened at, so the lines before it are kept."""
    lines = chars = 0
    try:
        for line in fh:
            lines += 1
            chars += len(line)
            yield line
    except Exception as exc:
        if not is_stream_error(exc):
            raise
        result.cut = {
            "reason": f"{type(exc).__name__}: {str(exc)[:160]}",
            "offset": chars,
            "unit": "decompressed character" if isinstance(fh, _CappedText) else "character",
            "after_line": lines,
            "unread": "the rest of the file",
        }


def record_cut(found: Discovered, result) -> None:
    """A file read only in part is a failure of the ledger, named with where it stopped."""
    if result.cut:
        cut = result.cut
        found.fail(
            result.name,
            f"read up to {cut['unit']} {cut['offset']} (after {cut['after_line']} {cut.get('counted', 'lines')}) and "
            f"no further: {cut['reason']}; "
            f"{len(result.steps.row_of)} steps kept from before it, {cut['unread']} not read",
            **{k: v for k, v in cut.items() if k != "reason"},
        )


_NUM_RE = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """Order of files that carry no timestamp: numbers compare as numbers (rl_999 before rl_1000),
    and a rotated file comes before the live one (train.log.2, train.log.1, train.log)."""
    leaf = name.rsplit("/", 1)[-1]
    m = ROTATION_RE.match(leaf)
    stem, rotation = (name[: len(name) - len(leaf)] + m.group("base"), int(m.group("n") or 0)) if m else (name, 0)
    parts = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in _NUM_RE.split(stem) if t)
    return parts, -rotation
