"""Numbers in asset metadata rounded to what they can support, in one place.

A float computed as 100 * 0.1 shows as 9.999999999999998 and a p-value as 5.910882894255565e-12 in the
UI: digits beyond what the data carries are noise to a reader. Four significant digits keep every
estimate, rate and p-value this project computes readable and distinct (a p-value keeps its
exponent: 5.911e-12); integers, NaN and infinities pass through. The stored values keep full precision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import dagster as dg

SIGNIFICANT_DIGITS = 4


def rounded(x: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """`x` to `digits` significant digits.

    >>> rounded(9.999999999999998), rounded(5.910882894255565e-12), rounded(0.123456), rounded(123456.7)
    (10.0, 5.911e-12, 0.1235, 123500.0)
    """
    return x if not math.isfinite(x) or x == 0 else float(f"{x:.{digits}g}")


def rounded_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """`metadata` with every float (plain or dg.MetadataValue.float) rounded; everything else as it is."""
    out = {}
    for key, value in metadata.items():
        if isinstance(value, float):
            value = rounded(value)
        elif isinstance(value, dg.FloatMetadataValue) and value.value is not None:
            value = dg.MetadataValue.float(rounded(value.value))
        out[key] = value
    return out
