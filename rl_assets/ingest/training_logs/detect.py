"""Which reader a file under training_logs/ belongs to, told by its content (docs/q2.md, "Readers").

A file name only narrows the search (``*.table.json`` is a W&B media table, ``wandb-summary.json`` a
summary); the reader is chosen by what the file holds: a verl console line (``step:N - key:value``),
a JSON object with ``log_history`` (HF Trainer / TRL ``trainer_state.json``), a TFRecord whose first
event names the TensorBoard event-file version. Every other text file is left to the SkyRL reader,
which accounts for each of its lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rl_assets.ingest.training_logs.files import open_text

VERL, TRAINER_STATE, TENSORBOARD = "verl", "trainer_state", "tensorboard"
WANDB_SUMMARY, WANDB_TABLE, TEXT, OTHER = "wandb_summary", "wandb_table", "text", "other"
HEAD_BYTES = 64 * 1024
MAX_STATE_BYTES = 64 * 1024 * 1024  # a trainer_state.json larger than this is not read whole
SCAN_BYTES, CHUNK = 32 * 1024 * 1024, 1024 * 1024  # verl prints configs and worker logs before step 1
# "step:12 - key:value" anywhere in a line (after a Ray "(TaskRunner pid=1)" prefix or ANSI colour),
# or "step:12" alone opening a block of " - key:value" lines; the character before must end a word
VERL_STEP = re.compile(r"step:\d+(?: - [^\s:]+:|[ \t]*$)", re.M)
TABLE_REASON = "W&B validation-generation table (read by ingest/formats/wandb_tables.py, not a training log)"


def head_text(path: Path, limit: int = HEAD_BYTES) -> str:
    """The first ``limit`` characters of a plain, .gz or .zst text file ('' when unreadable)."""
    try:
        with open_text(path) as fh:
            return fh.read(limit)
    except (OSError, EOFError, ValueError, ImportError):  # ImportError: a .zst without zstandard
        return ""


def _is_event_file(path: Path) -> bool:
    """TensorBoard writes a file_version event ("brain.Event:2") as an event file's first record."""
    try:
        with open(path, "rb") as fh:
            return b"brain.Event" in fh.read(128)
    except OSError:
        return False


def _has_log_history(path: Path) -> bool:
    if path.stat().st_size > MAX_STATE_BYTES:
        return False
    try:
        obj = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (json.JSONDecodeError, OSError):
        return False
    return isinstance(obj, dict) and isinstance(obj.get("log_history"), list)


def classify(path: Path) -> str:
    name, posix = path.name, path.as_posix()
    if name.endswith(".table.json") or "/media/table/" in f"/{posix}":
        return WANDB_TABLE
    if "tfevents" in name:
        return TENSORBOARD if _is_event_file(path) else OTHER
    if name == "wandb-summary.json":
        return WANDB_SUMMARY
    if name.endswith(".json"):
        return TRAINER_STATE if _has_log_history(path) else OTHER
    if "\0" in head_text(path, 4096):
        return OTHER
    return VERL if has_verl_step(path) else TEXT


def has_verl_step(path: Path) -> bool:
    """A verl step line in the first SCAN_BYTES characters (read in chunks; stops at the first)."""
    try:
        with open_text(path) as fh:
            tail = ""
            for _ in range(SCAN_BYTES // CHUNK):
                chunk = fh.read(CHUNK)
                if not chunk:
                    return False
                text = tail + chunk
                for m in VERL_STEP.finditer(text):
                    if m.start() == 0 or text[m.start() - 1] in " \t\r\n)m":
                        return True
                tail = text[-200:]
    except (OSError, EOFError, ValueError, ImportError):
        return False
    return False


def first_lines(path: Path, n: int = 3, width: int = 120) -> list[str]:
    """The first ``n`` non-blank lines, cut to ``width``: the shape a person needs to name the format."""
    if "tfevents" in path.name or "\0" in head_text(path, 4096):
        return ["<binary>"]
    lines = [ln.strip()[:width] for ln in head_text(path, 16 * 1024).splitlines() if ln.strip()]
    return lines[:n] or ["<empty>"]
