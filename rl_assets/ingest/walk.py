"""The format-independent walk: every entry under a source folder, each reached exactly once.

Symlinks are followed once: a folder or file whose real path was already reached (a second
link to it, or a link back up the tree) is recorded as a repeat, never read twice and never
looped into. Hidden entries (``.git``, ``.cache``, ``.DS_Store``) are recorded as not searched.
``unit_dir`` lets a format claim a folder as one unit (a Harbor trial): it is recorded and not
descended into. What the walk returns is counted by the ledger before any format rule runs, so a
file no adapter recognised is still on the books.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from rl_assets.schema import COMPRESSIONS, DATA_SUFFIXES, Codec

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)

ARCHIVES = (".zip", ".tar", ".tgz", ".tar.gz", ".7z", ".rar")
UNSUPPORTED_COMPRESSIONS = (".xz", ".lzma", ".lz4", ".br", ".zstd", ".snappy")
TABLE_FORMATS = (".csv", ".tsv", ".arrow", ".feather", ".orc", ".avro")
REPEAT = "reached again through a symlink (read once)"
BROKEN_LINK = "broken symlink"
HIDDEN = "hidden file or folder (not searched)"


@dataclass
class Walk:
    files: list[Path] = field(default_factory=list)  # outside unit folders, sorted
    units: list[Path] = field(default_factory=list)  # folders claimed by unit_dir
    repeats: list[Path] = field(default_factory=list)
    unit_repeats: list[Path] = field(default_factory=list)  # repeats that are unit folders
    odd: list[tuple[Path, str]] = field(default_factory=list)  # (entry, reason): broken links, hidden


def walk(root: Path, unit_dir: Callable[[Path], bool] = lambda d: False) -> Walk:
    out = Walk()
    if unit_dir(root):
        out.units.append(root)
        return out
    seen = {os.path.realpath(root)}
    stack = [(root, os.path.realpath(root))]
    while stack:
        folder, real_folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            out.odd.append((folder, f"unreadable folder ({exc.strerror or exc})"))
            continue
        subdirs = []
        for e in entries:
            path = Path(e.path)
            if e.name.startswith("."):
                out.odd.append((path, HIDDEN))
                continue
            real = os.path.realpath(e.path) if e.is_symlink() else os.path.join(real_folder, e.name)
            if real in seen:
                (out.unit_repeats if e.is_dir() and unit_dir(path) else out.repeats).append(path)
                continue
            if e.is_dir():
                seen.add(real)
                if unit_dir(path):
                    out.units.append(path)
                else:
                    subdirs.append((path, real))
            elif e.is_file():
                seen.add(real)
                out.files.append(path)
            else:
                out.odd.append((path, BROKEN_LINK if e.is_symlink() else "not a regular file"))
        stack.extend(reversed(subdirs))  # depth first, in name order
    out.files.sort()
    out.units.sort()
    return out


def account_extras(w: Walk, skips) -> None:
    """Repeats, broken links and hidden entries of a walk onto the ledger (``skips``: SkipLog)."""
    for _ in w.repeats + w.unit_repeats:
        skips.input_merged(REPEAT)
    for path, reason in w.odd:
        skips.input_not_read(reason, path, lost=reason != HIDDEN)


def split_suffix(path: Path) -> tuple[str, Codec | None]:
    """(data suffix, compression codec or None): ``a.jsonl.gz`` -> (".jsonl", "gzip")."""
    name = path.name.lower()
    for ext, codec in COMPRESSIONS.items():
        if name.endswith(ext):
            return Path(name[: -len(ext)]).suffix, codec
    return Path(name).suffix, None


def not_data_reason(path: Path) -> tuple[str, bool] | None:
    """(reason, lost) for a file that is not read as trace data, None for a data file."""
    name = path.name.lower()
    if name.endswith(ARCHIVES):
        return "archive (extract it to ingest its files)", True
    if name.endswith(UNSUPPORTED_COMPRESSIONS):
        return "compressed with an unsupported codec (use .gz, .bz2 or .zst, or decompress it)", True
    suffix, codec = split_suffix(path)
    if suffix in DATA_SUFFIXES:
        return None
    if suffix in TABLE_FORMATS:
        return f"unsupported table format {suffix} (export parquet or JSONL)", True
    if codec is not None:
        return "compressed file that is not parquet/JSONL/JSON", False
    return "not a trace data file", False


def open_binary(path: Path) -> BinaryIO:
    """A buffered binary reader of the file's content, decompressed when its name says so."""
    import pyarrow as pa

    _, codec = split_suffix(path)
    if codec is None:
        return open(path, "rb", buffering=1 << 20)
    stream = pa.input_stream(str(path), compression=codec)
    return io.BufferedReader(stream, 1 << 20)  # type: ignore[type-var]  # a NativeFile is a raw stream; its stubs do not say so


def read_bytes(path: Path) -> bytes:
    with open_binary(path) as fh:
        return fh.read()
