"""Small, shared helpers for markdown reports and their JSON sidecars.

Every report formats numbers the same way (so "0.213 [0.18, 0.25]" means the same in Q1 and Q4)
and writes JSON that strict parsers accept (no NaN/Infinity, no numpy scalars).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable
from typing import Any, NamedTuple

# Printed under every verdict that can accuse (the audit's labels, reward integrity's verdict): how often
# those verdicts were wrong on real runs is published, and a reader should know where.
ERROR_RATES = (
    "How often these verdicts are wrong on real runs — precision and recall on a pre-registered corpus, "
    "and recall of injected exploits — is published in rldelta's docs/validity.md."
)

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)


def fmt_num(x: Any, digits: int = 3) -> str:
    """A number for a table cell; missing / non-finite values become an em dash."""
    if x is None or isinstance(x, str):
        return "—" if x is None else x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not math.isfinite(v):
        return "—"
    if digits == 0 or (v.is_integer() and abs(v) >= 1000):
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def fmt_signed(x: Any, digits: int = 3) -> str:
    s = fmt_num(x, digits)
    return s if s == "—" or s.startswith("-") else "+" + s


def fmt_pct(x: Any, digits: int = 1, signed: bool = False) -> str:
    """A proportion in 0..1 as percent (signed=True for percentage-point deltas)."""
    if x is None or not math.isfinite(float(x)):
        return "—"
    s = f"{100 * float(x):.{digits}f}"
    return ("+" + s if signed and not s.startswith("-") else s) + ("pp" if signed else "%")


def fmt_ci(lo: Any, hi: Any, digits: int = 3, pct: bool = False, signed: bool = False) -> str:
    """[lo, hi]; pct=True as percent. signed=True for the interval of a delta: each end carries
    its sign (+0.120; as percentage points with pct=True)."""
    if lo is None or hi is None:
        return "—"
    if pct:
        return f"[{fmt_pct(lo, digits=1, signed=signed)}, {fmt_pct(hi, digits=1, signed=signed)}]"
    end = fmt_signed if signed else fmt_num
    return f"[{end(lo, digits)}, {end(hi, digits)}]"


def fmt_p(p: Any) -> str:
    """p-values: 3 significant digits, tiny ones as '<1e-4' (resolution of the tests used)."""
    if p is None or not math.isfinite(float(p)):
        return "—"
    return "<1e-4" if p < 1e-4 else f"{p:.3g}"


class Report(NamedTuple):
    """What a question's report.py returns: the files of its report folder (name -> text or PNG
    bytes, in writing order), the markdown the asset shows in the UI, and the plots (name -> PNG)
    the UI shows inline. The asset writes `files` as they are; nothing in analysis/ writes."""

    files: dict[str, str | bytes]
    summary: str
    plots: dict[str, bytes]


def json_text(obj: Any) -> str:
    """A report's JSON file: sorted keys, two-space indent, strict (pass it through `jsonable` first)."""
    return json.dumps(obj, indent=2, sort_keys=True, allow_nan=False, default=str) + "\n"


def first_of(items: list[str], limit: int = 10) -> str:
    """`items` joined with commas, the first `limit` of a longer list then "… and N more": a report line
    listing every one of ~200 keys is read by no one."""
    shown = ", ".join(items[:limit])
    return shown + (f" … and {len(items) - limit} more" if len(items) > limit else "")


def bullet_list(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def jsonable(obj: Any) -> Any:
    """Recursively convert to strict-JSON types: NaN/inf -> None, numpy -> python, dataclasses -> dict."""
    import numpy as np

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable(obj.to_dict() if hasattr(obj, "to_dict") else dataclasses.asdict(obj))
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj
