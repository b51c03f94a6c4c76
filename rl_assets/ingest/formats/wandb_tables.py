"""W&B validation-generation tables -> one row per (validation round, sample).

verl (and trainers built on it) log ``val/generations`` as a W&B table with the columns
``step, input_1, output_1, score_1, input_2, ...``: one table row per validation round, one
(input, output, score) triple per logged sample; EasyR1-style loggers add ``label_i`` (the ground
truth), read into ``label`` (None when the table has none). The run folder keeps each logged version as
``files/media/table/**/*.table.json`` (``{"columns": [...], "data": [[...], ...]}``), and every
version holds all rounds so far, so the same round appears in many files.

Rules:
- Tables are read oldest first (fewest rounds, then highest round, then file name); the newest
  table is the superset. A (round, sample) found again with the same content is merged; with
  other content the later table's copy is kept and the earlier one counted as superseded.
- A ``*.table.json`` without a ``step`` column and ``input_i/output_i/score_i`` triples is not a
  validation table: not read, counted by reason. A file that is not JSON is not read, counted.
- A table row that is not a list of the table's width, or whose step is not an integer, skips
  all its samples (counted, named); a sample whose score is not a finite number is skipped alone.
Ledger (``Ledger``, on ``frame.attrs["ledger"]``): samples found = written + skipped + merged.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("step", "sample", "input", "output", "score", "label")
TABLE_GLOB = "*.table.json"
_TRIPLE = re.compile(r"^(input|output|score|label)_(\d+)$")

NOT_JSON = "not valid JSON"
NOT_VALIDATION = "not a validation-generation table (no step and input_i/output_i/score_i columns)"
BAD_WIDTH = "table row is not a list of the table's width"
BAD_STEP = "round step is not an integer"
BAD_SCORE = "score is not a finite number"
SAME_AGAIN = "same round and sample in a later table, same content (kept once)"
SUPERSEDED = "same round and sample in a later table, other content (the later table's copy kept)"


@dataclass
class Ledger:
    tables_found: int = 0
    tables_read: int = 0
    tables_not_read: dict[str, list[str]] = field(default_factory=dict)  # reason -> files
    found: int = 0  # samples (table row x input_i triple)
    skipped: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    merged: dict[str, int] = field(default_factory=dict)
    written: int = 0

    def skip(self, reason: str, where: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n
        if len(self.examples) < 10:
            self.examples.append(f"{where}: {reason}")

    def balanced(self) -> bool:
        return self.found == self.written + sum(self.skipped.values()) + sum(self.merged.values())


def find_tables(folder: str | Path) -> list[Path]:
    """Every ``*.table.json`` under the folder (a run folder, its files/media/table, or a copy)."""
    root = Path(folder).expanduser()
    if not root.exists():
        raise FileNotFoundError(f"validation tables folder {root} does not exist")
    return sorted(root.rglob(TABLE_GLOB)) if root.is_dir() else [root]


def _triples(columns: list) -> dict[int, tuple[int, int, int, int | None]] | None:
    """{sample i: (input, output, score, label or None) column} or None when this is not a validation table."""
    if not isinstance(columns, list) or "step" not in columns:
        return None
    seen: dict[int, dict[str, int]] = {}
    for pos, name in enumerate(columns):
        m = _TRIPLE.match(str(name))
        if m:
            seen.setdefault(int(m.group(2)), {})[m.group(1)] = pos
    out = {
        i: (c["input"], c["output"], c["score"], c.get("label"))
        for i, c in seen.items()
        if {"input", "output", "score"} <= set(c)
    }
    return out or None


def _step(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _score(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _load(path: Path, ledger: Ledger) -> tuple[dict, dict] | None:
    ledger.tables_found += 1
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError):
        ledger.tables_not_read.setdefault(NOT_JSON, []).append(str(path))
        return None
    triples = _triples(data.get("columns")) if isinstance(data, dict) else None
    if triples is None or not isinstance(data.get("data"), list):
        ledger.tables_not_read.setdefault(NOT_VALIDATION, []).append(str(path))
        return None
    ledger.tables_read += 1
    return data, triples


def _samples(path: Path, data: dict, triples: dict, ledger: Ledger):
    """(step, sample, input, output, score, label) of one table; bad rows and cells counted."""
    width, step_col = len(data["columns"]), data["columns"].index("step")
    for r, row in enumerate(data["data"]):
        ledger.found += len(triples)
        where = f"{path} row {r}"
        if not isinstance(row, list) or len(row) != width:
            ledger.skip(BAD_WIDTH, where, len(triples))
            continue
        step = _step(row[step_col])
        if step is None:
            ledger.skip(BAD_STEP, f"{where} (step {row[step_col]!r})", len(triples))
            continue
        for i, (ci, co, cs, cl) in sorted(triples.items()):
            score = _score(row[cs])
            if score is None:
                ledger.skip(BAD_SCORE, f"{where} score_{i} ({row[cs]!r})")
                continue
            label = None if cl is None or row[cl] is None else str(row[cl])
            yield step, i, _text(row[ci]), _text(row[co]), score, label


def _text(value) -> str:
    return "" if value is None else str(value)


def read_validation_tables(folder: str | Path) -> pd.DataFrame:
    """Every validation round of the tables under ``folder``: columns step, sample, input,
    output, score, label (one row per round and sample, sorted), deduplicated across table versions.
    ``frame.attrs["ledger"]`` is the ``Ledger``; an empty frame when no table was found."""
    import pandas as pd

    ledger = Ledger()
    loaded = [(p, got) for p in find_tables(folder) if (got := _load(p, ledger)) is not None]
    loaded.sort(key=lambda pg: (len(pg[1][0]["data"]), _max_step(pg[1][0]), str(pg[0])))
    kept: dict[tuple[int, int], tuple] = {}
    for path, (data, triples) in loaded:
        for step, i, *content in _samples(path, data, triples, ledger):
            old = kept.get((step, i))
            if old is not None:
                reason = SAME_AGAIN if old == tuple(content) else SUPERSEDED
                ledger.merged[reason] = ledger.merged.get(reason, 0) + 1
            kept[(step, i)] = tuple(content)
    ledger.written = len(kept)
    frame = pd.DataFrame([(s, i, *v) for (s, i), v in sorted(kept.items())], columns=list(COLUMNS))
    frame.attrs["ledger"] = ledger
    return frame


def _max_step(data: dict) -> int:
    pos = data["columns"].index("step")
    steps = [_step(r[pos]) for r in data["data"] if isinstance(r, list) and len(r) > pos]
    return max((s for s in steps if s is not None), default=-1)


def select_rounds(steps: list[int], selector: str) -> set[int]:
    """Rounds a selector names: ``all``, ``first``, ``last``, or one step number."""
    if not steps:
        return set()
    if selector == "all":
        return set(steps)
    if selector == "first":
        return {min(steps)}
    if selector == "last":
        return {max(steps)}
    if selector.isdigit():
        if int(selector) not in steps:
            raise ValueError(f"validation round {selector} not in the tables (rounds: {sorted(set(steps))})")
        return {int(selector)}
    raise ValueError(f"round selector {selector!r}: use first, last, all or a step number")
