"""Q4: solve rate by context length, in DISJOINT bins, and whether RL moved traces between bins.

Every row lands in exactly one bin ([lo, hi) edges, plus an "unknown" bin for rows with no
length) and in exactly one outcome class, so counts add up to the table. The change in overall
solve rate is split exactly into a mix-shift part (traces moved to bins with different solve
rates) and a within-bin part (solve rates changed inside bins); see docs/statistics.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rl_assets.analysis import stats

# numpy, pandas, pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

DEFAULT_EDGES = (0, 8192, 16384, 32768, 65536, 131072, math.inf)
UNKNOWN = "unknown"
# Outcome classes, first match wins, so each row has exactly one.
OUTCOMES = ("solved", "timeout", "context_exceeded", "other_error", "zero_reward", "partial", "unscored")
COLUMNS = ("task_id", "passed", "reward", "error_type", "n_tokens", "peak_prompt_tokens")


def bin_label(lo: float, hi: float) -> str:
    def k(v: float) -> str:
        return "0" if v == 0 else f"{v / 1024:g}k"

    return f"≥{k(lo)}" if math.isinf(hi) else f"{k(lo)}–{k(hi)}"


def normalize_edges(edges: Sequence[float] | None) -> list[float]:
    """Sorted, strictly increasing edges starting at 0 and ending at +inf (added when missing)."""
    e = sorted(float(x) for x in (edges or DEFAULT_EDGES))
    if e[0] > 0:
        e.insert(0, 0.0)
    if not math.isinf(e[-1]):
        e.append(math.inf)
    if any(b <= a for a, b in zip(e, e[1:])):
        raise ValueError(f"context bin edges must be strictly increasing, got {list(edges or DEFAULT_EDGES)}")
    return e


def classify(df: pd.DataFrame) -> pd.Series:
    import numpy as np
    import pandas as pd

    err = df["error_type"].fillna("").astype(str)
    reward = pd.to_numeric(df["reward"], errors="coerce")
    conds = [
        df["passed"].fillna(False).astype(bool),
        err.str.contains("Timeout"),
        err.str.contains("ContextLength") | err.str.contains("ContextWindow"),
        err != "",
        reward == 0,
        reward.notna(),
    ]
    return pd.Series(np.select(conds, OUTCOMES[:-1], OUTCOMES[-1]), index=df.index)


def assign_bins(df: pd.DataFrame, edges: list[float]) -> tuple[pd.Series, dict[str, Any]]:
    """Bin label per row: peak_prompt_tokens when recorded (the real prompt), else n_tokens."""
    import numpy as np
    import pandas as pd

    peak = pd.to_numeric(df["peak_prompt_tokens"], errors="coerce")
    total = pd.to_numeric(df["n_tokens"], errors="coerce")
    length = peak.where(peak.notna(), total).astype(float)
    length = length.where(length >= 0)
    labels = [bin_label(lo, hi) for lo, hi in zip(edges, edges[1:])]
    codes = np.searchsorted(np.asarray(edges), length.fillna(-1).to_numpy(), side="right") - 1
    out = pd.Series([labels[c] if c >= 0 and ok else UNKNOWN for c, ok in zip(codes, length.notna())], index=df.index)
    source: dict[str, Any] = {
        "peak_prompt_tokens": int(peak.notna().sum()),
        "n_tokens": int((peak.isna() & total.notna()).sum()),
        "unknown": int(length.isna().sum()),
    }
    used = [k for k in ("peak_prompt_tokens", "n_tokens") if source[k]]
    source["length_source"] = "mixed" if len(used) == 2 else (used[0] if used else "none")
    source["median_length"] = float(length.median()) if length.notna().any() else None
    return out, source


def side_bins(table: pa.Table | pd.DataFrame, edges: list[float]) -> dict[str, Any]:
    import pyarrow as pa

    df = table.to_pandas() if isinstance(table, pa.Table) else table.copy()
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = None
    bins, source = assign_bins(df, edges)
    outcome = classify(df)
    labels = [bin_label(lo, hi) for lo, hi in zip(edges, edges[1:])] + [UNKNOWN]
    n_total = len(df)
    rows: list[dict[str, Any]] = []
    for label in labels:
        mask = (bins == label).to_numpy()
        n = int(mask.sum())
        row: dict[str, Any] = {"bin": label, "n": n, "share": n / n_total if n_total else None}
        for o in OUTCOMES:
            k = int((outcome[mask] == o).sum())
            lo, hi = stats.wilson_interval(k, n)
            row[o] = {"k": k, "rate": k / n if n else None, "lo": lo, "hi": hi}
        rows.append(row)
    solved = int((outcome == "solved").sum())
    return {"n": n_total, "solve_rate": solved / n_total if n_total else None, "bins": rows, **source}


def decompose(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Exact split of Δ solve rate = Σ Δw·s̄ (mix shift) + Σ Δs·w̄ (within bins), symmetric weights.

    A bin empty on one side has no solve rate there; the other side's rate is used, so that bin's
    whole contribution counts as mix shift (traces appeared/disappeared, no within-bin change).
    """
    mix = within = 0.0
    per_bin = []
    for rb, ra in zip(before["bins"], after["bins"]):
        wb, wa = rb["share"] or 0.0, ra["share"] or 0.0
        sb, sa = rb["solved"]["rate"], ra["solved"]["rate"]
        sb, sa = (sa if sb is None else sb), (sb if sa is None else sa)
        if sb is None:  # empty on both sides
            continue
        m, w = (wa - wb) * (sa + sb) / 2, (sa - sb) * (wa + wb) / 2
        mix, within = mix + m, within + w
        d, lo, hi = stats.two_proportion_diff_ci(rb["solved"]["k"], rb["n"], ra["solved"]["k"], ra["n"])
        per_bin.append({"bin": rb["bin"], "mix": m, "within": w, "solve_diff": d, "lo": lo, "hi": hi})
    total = (after["solve_rate"] or 0.0) - (before["solve_rate"] or 0.0)
    return {"total": total, "mix_shift": mix, "within_bin": within, "per_bin": per_bin}


def interpretation(before: dict[str, Any], after: dict[str, Any], dec: dict[str, Any]) -> str:
    def pp(v: float) -> str:
        return f"{100 * v:+.1f}pp"

    def tokens(v: float | None) -> str:
        return "unknown" if v is None else f"{v:,.0f}"

    if not before["n"] or not after["n"]:
        return "No interpretation: one side has no rows."
    mb, ma = before["median_length"], after["median_length"]
    moved = "unknown" if mb is None or ma is None else "longer" if ma > mb else "shorter" if ma < mb else "unchanged"
    big = max(dec["per_bin"], key=lambda r: abs(r["mix"]), default=None)
    dominant = "mix shift" if abs(dec["mix_shift"]) > abs(dec["within_bin"]) else "within-bin change"
    line = (
        f"Solve rate {100 * before['solve_rate']:.1f}% → {100 * after['solve_rate']:.1f}% ({pp(dec['total'])}) = "
        f"{pp(dec['mix_shift'])} from traces moving between context bins + {pp(dec['within_bin'])} from solve "
        f"rates changing inside bins; {dominant} dominates. Median context length "
        f"{tokens(mb)} → {tokens(ma)} tokens ({moved})"
    )
    if big and abs(big["mix"]) >= 0.005:
        line += f"; largest mix contribution: bin {big['bin']} ({pp(big['mix'])})"
    if before["length_source"] != after["length_source"]:
        line += (
            f". Caution: lengths are measured differently ({before['length_source']} vs "
            f"{after['length_source']}), so part of any mix shift is the change of measure"
        )
    return line + "."


def solve_rate_by_context(
    before: pa.Table | pd.DataFrame,
    after: pa.Table | pd.DataFrame,
    *,
    edges: Sequence[float] | None = DEFAULT_EDGES,
    labels: Sequence[str] = ("baseline", "post-RL"),
) -> dict[str, Any]:
    e = normalize_edges(edges)
    b, a = side_bins(before, e), side_bins(after, e)
    dec = decompose(b, a)
    return {
        "labels": list(labels),
        "edges": [x if math.isfinite(x) else None for x in e],
        "outcome_rule": "first match: passed; error contains Timeout; ContextLength/ContextWindow; other error; "
        "reward == 0; partial credit; unscored",
        "before": b,
        "after": a,
        "decomposition": dec,
        "interpretation": interpretation(b, a, dec),
    }
