"""Non-finite values in the per-step table: counted and named per metric, then treated as not logged.

A reward of ±inf (an overflow, a division by a zero count) or a "nan" string is not a measurement:
left in, it counts as "logged" (it is not NaN) and then drops out of every curve, so a reward finite
at 2 steps could pass the "logged at 10 steps" test. Every column the analysis reads is made numeric
here, its non-finite entries counted by kind and set to NaN, so a later count of logged steps is a
count of finite values and the report can say how many were dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.values.metric_aliases import REWARD_TERM_PREFIX

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

# the canonical columns the integrity signals read (rl_assets/values/metric_aliases.py), besides the
# reward_term/<kind>/<name> columns
READ = (
    "reward",
    "task_score",
    "val_score",
    "response_length",
    "length_clipped_share",
    "entropy",
    "tool_calls",
    "turns",
)


def read_columns(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns if c in READ or c.startswith(REWARD_TERM_PREFIX)]


def _kind(value: Any) -> str | None:  # any logged entry: float() decides
    """'+inf', '-inf', 'nan' or 'not a number' for an entry that is present but not a finite number;
    None for a finite number or an absent entry (None, or a float NaN: what the readers write for
    'not logged at this step')."""
    import math

    if value is None:
        return None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return "not a number"
        return None if math.isfinite(number) else _kind(number) or "nan"  # the string "nan" is a logged NaN
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "not a number"
    if math.isnan(number):
        return None
    return None if math.isfinite(number) else ("+inf" if number > 0 else "-inf")


def finite_table(table: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[str, int]]]:
    """(the table with every read column numeric and finite-or-NaN, {column: {kind: count}} of the
    non-finite entries set to NaN; columns without any are left out of the counts)."""
    import numpy as np
    import pandas as pd

    counts: dict[str, dict[str, int]] = {}
    fixed = {}
    for column in read_columns(table):
        values = table[column]
        if values.dtype.kind in "fiu":  # numeric: only ±inf can be non-finite-but-present
            numeric = values.astype("float64")
            kinds = {"+inf": int(np.isposinf(numeric).sum()), "-inf": int(np.isneginf(numeric).sum())}
        else:  # object column: strings like "inf", "NaN", "1e999" (overflow), or text
            found = [_kind(v) for v in values]
            kinds = {k: found.count(k) for k in ("+inf", "-inf", "nan", "not a number")}
            numeric = pd.to_numeric(values.map(lambda v: v.strip() if isinstance(v, str) else v), errors="coerce")
            numeric = numeric.astype("float64")
        kinds = {k: n for k, n in kinds.items() if n}
        if kinds:
            counts[column] = kinds
        fixed[column] = numeric.where(np.isfinite(numeric))
    return table.assign(**fixed), counts


def describe(counts: dict[str, int]) -> str:
    """'238 non-finite values (+inf 120, -inf 118)'."""
    total = sum(counts.values())
    return f"{total} non-finite value{'s' if total != 1 else ''} ({', '.join(f'{k} {n}' for k, n in counts.items())})"
