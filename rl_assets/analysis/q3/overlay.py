"""Q3 temporal overlay: the RL-time reward line with the baseline / post-RL eval rewards as markers.

Fixes docs/original_pipeline.md W7/W8: the line uses the Q2 bins (rl_assets.analysis.q2.temporal, edges
aligned to the UTC epoch, nothing dropped) and the line and the markers use ONE reward definition
(REWARD_DEFINITION, computed by ``temporal.reward_summary`` — the same per-bin headline as Q2's
``rl_temporal`` table, so the two reports' RL curves agree exactly). Markers at the same time are spread symmetrically
and labelled so both stay readable. Pure: returns dicts, writes nothing; the plot is drawn by analysis/q3/report.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.q2.temporal import REWARD_DEFINITION as _HEADLINE
from rl_assets.analysis.q2.temporal import bin_rollouts, reward_outcomes, reward_summary, utc_timestamp

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

REWARD_DEFINITION = _HEADLINE + " — the same on the RL line, on both eval markers and in Q2's rl_temporal bins"
TITLE = "RL-time reward (line, UTC bins) with baseline and post-RL eval rewards (markers)"


def utc_ts(value: Any) -> pd.Timestamp | None:  # any stored value: what utc_timestamp refuses reads as None
    if value is None or value == "":
        return None
    try:
        return utc_timestamp(value)
    except (ValueError, TypeError):
        return None


def plotted_ts(value: str) -> pd.Timestamp:
    """The time of a line point or a plotted marker: an ISO time this module wrote from a parsed one."""
    return utc_timestamp(value)


def _num(v: Any) -> float | None:
    import pandas as pd

    return None if v is None or pd.isna(v) else float(v)


def eval_marker(df: pd.DataFrame, *, label: str, kind: str, source: str | None, timestamp: object) -> dict[str, Any]:
    scored = reward_outcomes(df)
    counted = scored[scored["counted"]]
    head = reward_summary(counted["reward0"])
    ts = utc_ts(timestamp)
    return {
        "label": label,
        "kind": kind,
        "source": source,
        "timestamp": ts.isoformat() if ts is not None else None,
        "n": int(len(counted)),
        "n_infra_dropped": int(len(scored) - len(counted)),
        "mean_reward": head["mean"] if len(counted) else None,
        "mean_reward_ci": [_num(head["lo"]), _num(head["hi"])],
        "ci_method": head["ci_method"],
        "plotted": ts is not None and len(counted) > 0,
        "why_not_plotted": None if ts is not None else "no timestamp",
    }


def rl_line(df: pd.DataFrame, bin_hours: float) -> dict[str, Any]:
    """Per-bin headline mean reward (and CI) from Q2's ``bin_rollouts`` on the same bin edges; bins
    without counted rollouts are gaps, not zeros."""
    bins, info, _, edges = bin_rollouts(df, bin_hours, features=())
    points: list[dict[str, Any]] = []
    for b in bins.to_dict("records") if edges is not None else ():
        centre = b["start"] + (b["end"] - b["start"]) / 2
        points.append(
            {
                "bin_start": b["start"].isoformat(),
                "bin_end": b["end"].isoformat(),
                "t": centre.isoformat(),
                "n": b["n_counted"],
                "mean_reward": _num(b["mean_reward"]),
                "mean_reward_ci": [_num(b["mean_reward_lo"]), _num(b["mean_reward_hi"])],
                "ci_method": b["mean_reward_ci"],
                "partial": b["partial"],
            }
        )
    return {
        "bin_hours": bin_hours,
        "edges": info.get("edges", []),
        "rows": info["rows"],
        "undated_rows": info["undated_rows"],
        "points": points,
    }


def spread(markers: list[dict[str, Any]], span: timedelta) -> list[dict[str, Any]]:
    """x offset per plotted marker: markers closer than span/80 form a group spread symmetrically
    by span/80 (baseline first), each with a stacked label slot, so co-located markers stay apart."""
    step = max(span / 80, timedelta(minutes=15))
    plotted = sorted((m for m in markers if m["plotted"]), key=lambda m: (m["timestamp"], m["kind"] != "baseline"))
    groups: list[list[dict[str, Any]]] = []
    for m in plotted:
        if groups and plotted_ts(m["timestamp"]) - plotted_ts(groups[-1][-1]["timestamp"]) < step:
            groups[-1].append(m)
        else:
            groups.append([m])
    for g in groups:
        for i, m in enumerate(g):
            m["x_offset_s"] = (i - (len(g) - 1) / 2) * step.total_seconds()
            m["label_slot"] = i
            m["co_located"] = len(g) > 1
    return markers


def build_overlay(
    rl_df: pd.DataFrame | None, rl_reason: str | None, markers: list[dict[str, Any]], bin_hours: float
) -> dict[str, Any]:
    rl = rl_line(rl_df, bin_hours) if rl_df is not None else None
    times = [plotted_ts(p["t"]) for p in (rl or {}).get("points", [])] + [
        plotted_ts(m["timestamp"]) for m in markers if m["plotted"]
    ]
    span = (max(times) - min(times)) if len(times) > 1 else timedelta(hours=1)
    notes = [] if rl is not None else [f"no RL-trace dataset: {rl_reason}"]
    notes += [
        f"{m['label']} marker not plotted: {m['why_not_plotted'] or 'no scored trials'}"
        for m in markers
        if not m["plotted"]
    ]
    return {
        "title": TITLE,
        "reward_definition": REWARD_DEFINITION,
        "rl": rl,
        "rl_applicable": rl is not None,
        "rl_reason": rl_reason,
        "eval": spread(markers, span or timedelta(hours=1)),
        "notes": notes,
    }
