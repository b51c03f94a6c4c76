"""JSON Lines records, found however they were written.

The hot path is one orjson parse per "\\n"-terminated line. A line that does not parse takes
the slow path, which finds every record in it: CR-only line endings (a raw CR never occurs
inside valid JSON text, so splitting on it is safe), several values on one line (``{..}{..}``
or ``{..} {..}``), a UTF-8 byte order mark. Whatever still does not parse is one bad record,
a counted skip naming its row -- "truncated last line" when it is the unterminated end of the
file (an interrupted write). A bad record never takes the rest of the file with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from . import _json
from .report import IngestError
from .walk import open_binary

TRUNCATED = "truncated last line"
SPLIT_CR = "CR-only line endings (records split at CR)"
SPLIT_MANY = "several JSON values on one line (split)"


def records(path: Path, notes=None) -> Iterator[tuple[int, object, str]]:
    """(record index, value or None, skip reason or "") for every record of the file. ``notes``
    (a SkipLog) receives one note per line the slow path had to split."""
    try:
        with open_binary(path) as fh:
            i = -1
            for raw in fh:  # 1 MiB buffer: lines are ~50 KB; isspace() tests blanks without a copy
                if raw.isspace():
                    continue
                try:
                    value = _json.loads(raw)
                except ValueError:
                    pieces = _split(raw)
                    if notes is not None and len(pieces) > 1:
                        notes.note(SPLIT_CR if b"\r" in raw.rstrip(b"\r\n") else SPLIT_MANY)
                    last = not raw.endswith(b"\n")  # only the final line can lack its newline
                    for k, (value, bad) in enumerate(pieces):
                        i += 1
                        if bad and last and k == len(pieces) - 1 and bad == _json.BAD_JSON:
                            bad = TRUNCATED
                        yield i, value, bad
                    continue
                i += 1
                yield i, value, ""
    except OSError as exc:  # unreadable or corrupt compressed stream: the file fails as a whole
        raise IngestError(f"{path}: unreadable file: {exc}") from exc


def _split(raw: bytes) -> list[tuple[object, str]]:
    """Every value in one line that did not parse as a whole: [(value, "") or (None, reason)]."""
    out: list[tuple[object, str]] = []
    for piece in raw.split(b"\r") if b"\r" in raw else (raw,):
        if piece.isspace() or not piece:
            continue
        try:
            out.append((_json.loads(piece), ""))
            continue
        except ValueError:
            pass
        out.extend(_scan_values(piece))
    return out or [(None, _json.BAD_JSON)]


def _scan_values(piece: bytes) -> list[tuple[object, str]]:
    """Consecutive JSON values in one piece of text; the unparseable rest is one bad record."""
    try:
        text = piece.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError:
        return [(None, _json.BAD_UTF8)]
    decoder, pos = json.JSONDecoder(), 0
    out: list[tuple[object, str]] = []
    while True:
        while pos < len(text) and text[pos] in " \t\n\r":
            pos += 1
        if pos >= len(text):
            return out
        try:
            end = decoder.raw_decode(text, pos)[1]
            value = _json.loads(text[pos:end])  # the same checks as every value (surrogates, depth)
        except (ValueError, RecursionError) as exc:
            return out + [(None, _json.bad_kind(exc) or _json.BAD_JSON)]
        out.append((value, ""))
        pos = end
