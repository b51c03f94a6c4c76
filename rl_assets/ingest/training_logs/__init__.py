"""Training logs of any trainer -> one per-step table (source layer; docs/q2.md, "Readers").

``read_training_logs(folder)`` looks at what each file holds (detect.py) and hands the folder to one
reader: verl console lines (also a W&B run's ``files/output.log``), HF Trainer / TRL
``trainer_state.json`` (repo root and ``checkpoint-*/``), TensorBoard event files, else the SkyRL
reader (rl_assets/ingest/skyrl_log/). When a folder holds several trainers' files the
first of READ_ORDER is read and the others are listed as not read, with that reason, and each is a
named failure of the ledger (their steps are missing from the table: the accounting check is red).
Every reader returns the same ``ParsedLogs`` with its ``trainer`` named; a folder none of them can read raises
UnrecognisedLogsError naming the files and showing their first lines -- never "not applicable".
The pieces every reader shares live here: files.py (walk, decompression, file ledger), result.py (line
ledger), payloads.py, sidecars.py, merge.py (restart chains), crosscheck.py, vllm.py, parsed.py.
"""

from __future__ import annotations

from pathlib import Path

# the SkyRL reader is one reader among the others; imported as a module because its own modules
# import this package's shared pieces (files, result, merge, ...)
from rl_assets.ingest import skyrl_log

from . import detect
from .assemble import assemble
from .files import (
    JSONL_NAMES,
    STREAM_ERRORS,
    Discovered,
    lines_until_cut,
    open_text,
    record_cut,
)
from .parsed import ParsedLogs
from .repo_states import STATE_PATTERNS, is_repo_trainer_state, logs_revision, repo_trainer_states
from .result import LogAccountingError
from .tensorboard_events import read_event_file
from .trainer_state import looks_like_trl, read_trainer_states
from .verl_console import parse_verl_lines

__all__ = [
    "STATE_PATTERNS",
    "ParsedLogs",
    "UnrecognisedLogsError",
    "is_repo_trainer_state",
    "logs_folder",
    "logs_revision",
    "read_training_logs",
    "repo_trainer_states",
]

READ_ORDER = (detect.VERL, detect.TRAINER_STATE, detect.TENSORBOARD)
READERS = "SkyRL logs, verl console lines, HF/TRL trainer_state.json, TensorBoard event files"
MAX_NAMED = 10


LOGS_FOLDER = "training_logs"  # where a model repo keeps its SkyRL logs (docs/formats.md)


def logs_folder(snapshot: Path | str) -> Path:
    """The training_logs/ folder inside a downloaded model-repo snapshot."""
    return Path(snapshot) / LOGS_FOLDER


class UnrecognisedLogsError(ValueError):
    """training_logs/ holds files, but no reader finds a training step in them."""


def _not_read_reason(kind: str, trainer_kind: str, path: Path) -> str:
    if kind == detect.WANDB_TABLE:
        return detect.TABLE_REASON
    if kind in READ_ORDER:
        return f"{kind} file; this folder was read as {trainer_kind} (one reader per folder)"
    if kind == detect.TEXT:
        return f"text with no {trainer_kind} content"
    return f"not a training log ({path.suffix or 'no suffix'})"


def describe_unrecognised(files: list[Path], base: Path, why: str) -> str:
    lines = [
        f'training_logs/: {why} (readers tried: {READERS}; docs/q2.md, "Readers"). {len(files)} file(s), first lines:'
    ]
    for p in files[:MAX_NAMED]:
        lines.append(f"- {p.relative_to(base)}: " + " | ".join(repr(t) for t in detect.first_lines(p)))
    if len(files) > MAX_NAMED:
        lines.append(f"- … and {len(files) - MAX_NAMED} more")
    return "\n".join(lines)


def _read(trainer_kind: str, found: Discovered, base: Path) -> tuple[str, list, dict]:
    """(trainer, per-file results, {"per_file": ledgers, "checkpoints": …} or {})"""
    if trainer_kind == detect.TRAINER_STATE:
        merged, info = read_trainer_states(found.logs, base)
        return ("trl" if looks_like_trl(merged) else "hf_trainer"), [merged], info
    results = []
    for p in list(found.logs):
        rel = str(p.relative_to(base))
        try:
            if trainer_kind == detect.VERL:
                with open_text(p) as fh:
                    res = parse_verl_lines(rel, fh, cut_by=lines_until_cut)
            else:
                res = read_event_file(p, rel)
        except STREAM_ERRORS as exc:  # unreadable from its first byte
            found.unreadable(p, rel, exc)
            continue
        record_cut(found, res)  # read up to a corrupt record or a cut stream: kept, and named
        results.append(res)
    return ("verl" if trainer_kind == detect.VERL else "tensorboard"), results, {}


def _other_trainers(found: Discovered, kinds: dict[Path, str], trainer_kind: str, base: Path) -> None:
    """Files of another reader's format in a folder read by one reader: each is a failure of the
    ledger, named (their steps are not in the table). A text file is another trainer's when the
    SkyRL reader finds a training step in it."""
    for p, kind in kinds.items():
        rel = str(p.relative_to(base))
        if kind in READ_ORDER and kind != trainer_kind:
            found.fail(
                rel, f"holds {kind} logs, not read: this folder was read as {trainer_kind} (one reader per folder)"
            )
        elif kind == detect.TEXT and p.name not in JSONL_NAMES and _skyrl_steps(p):
            found.fail(
                rel, f"holds SkyRL log steps, not read: this folder was read as {trainer_kind} (one reader per folder)"
            )


def _broken_states(kinds: dict[Path, str], base: Path) -> list[dict]:
    """A file named trainer_state.json that is not a JSON object with a log_history (cut short by an
    interrupted upload, say): its entries cannot be read, which is a failure, never a quiet skip."""
    return [
        {
            "file": str(p.relative_to(base)),
            "reason": f"trainer_state.json larger than the {detect.MAX_STATE_BYTES >> 20} MiB read limit; not read"
            if p.stat().st_size > detect.MAX_STATE_BYTES
            else "trainer_state.json that is not a readable JSON object with a log_history (cut short?); "
            "its entries are not read",
            "offset": 0,
            "unit": "byte",
        }
        for p, kind in kinds.items()
        if p.name == "trainer_state.json" and kind == detect.OTHER
    ]


def _skyrl_steps(path: Path) -> int:
    try:
        return len(skyrl_log.parse_training_logs(path).steps)
    except (*STREAM_ERRORS, LogAccountingError):
        return 0


def read_training_logs(path: Path | str, repo_states: list[Path] | tuple = ()) -> ParsedLogs:
    """Parse a training_logs/ folder (or one file) of any supported trainer, plus the repo's own
    trainer_state.json files (``repo_states``, from repo_trainer_states: then names are relative to
    the repo root). Raises FileNotFoundError when there is nothing at all, UnrecognisedLogsError
    when no reader finds a step."""
    path, extra = Path(path), [Path(p) for p in repo_states]
    if not path.exists() and not extra:
        raise FileNotFoundError(f"training logs path does not exist: {path}")
    base = path.parent if extra else (path if path.is_dir() else path.parent)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path] if path.exists() else []
    files += extra
    kinds = {p: detect.classify(p) for p in files}
    trainer_kind = next((k for k in READ_ORDER if k in kinds.values()), None)
    broken = _broken_states(kinds, base)
    if trainer_kind is None:
        if not path.exists():
            raise UnrecognisedLogsError(describe_unrecognised(files, base, "no reader recognises these files"))
        parsed = skyrl_log.parse_training_logs(path)
        if parsed.steps.empty:
            raise UnrecognisedLogsError(describe_unrecognised(files, base, "no reader recognises these files"))
        ledger = parsed.accounting["files"]
        ledger["failures"] = [*broken, *ledger["failures"]][:50]
        ledger["n_failures"] += len(broken)
        return parsed
    found = Discovered(found=len(files), failures=broken)
    for p, kind in kinds.items():
        if kind == trainer_kind:
            found.logs.append(p)
        elif kind == detect.WANDB_SUMMARY:
            found.summaries.append(p)
        else:
            found.not_read[str(p.relative_to(base))] = _not_read_reason(kind, trainer_kind, p)
    _other_trainers(found, kinds, trainer_kind, base)
    trainer, results, info = _read(trainer_kind, found, base)
    parsed = assemble(
        trainer,
        results,
        found,
        base,
        info.get("per_file"),
        {"checkpoints": info["checkpoints"]} if "checkpoints" in info else None,
    )
    if parsed.steps.empty:
        raise UnrecognisedLogsError(
            describe_unrecognised(found.logs or files, base, f"read as {trainer}, but no training step was found")
        )
    return parsed
