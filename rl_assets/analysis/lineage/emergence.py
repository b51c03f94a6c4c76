"""When did a change emerge across a run's checkpoints, does it persist, did it come at once?

The significance rule (docs/lineage.md), the same tests and α as Q1, corrected for the lineage's
own family of looks:
- A checkpoint's change vs the base (Q1's paired task-clustered Δ, CI and sign-flip p) is
  **significant** when its 95% CI excludes 0 AND its p, Holm-adjusted over every (quantity,
  checkpoint) cell of the lineage, is < α. Looking at K checkpoints is K looks at the data, so
  Q1's per-checkpoint Holm (over the features of one comparison) is extended over all K.
- **Emerged at** = the first checkpoint, in step order, where it is significant.
- **Persists** = at every later checkpoint the 95% CI still excludes 0 on the same side (an
  intersection-union test: each later checkpoint tested at α, no correction needed); "faded" /
  "reversed" name the first later checkpoint where it does not.
- **How it moved** (features): paired Δ between consecutive checkpoints on their common tasks,
  Holm-adjusted over every (feature, step) cell. "gradual" = two or more significant steps in the
  emergence direction (base → first checkpoint counts as a step), "at once" = exactly one,
  "accumulated" = none (only the sum of the steps is significant).
"""

from __future__ import annotations

from rl_assets.analysis import stats
from rl_assets.analysis.lineage.resolution import mark_limited
from rl_assets.analysis.pairing.frames import paired_frames
from rl_assets.analysis.q1.behavioral_delta import to_frame
from rl_assets.analysis.q1.paired_deltas import ALPHA, feature_deltas
from rl_assets.analysis.stats.resolution import permutations_for
from rl_assets.schema import FEATURE_COLUMNS

CELL_KEYS = ("before", "after", "delta", "lo", "hi", "p", "effect_size", "not_enough_data", "n_tasks")


def holm_mark(cells: list[dict], alpha: float = ALPHA, n_boot: int | None = None) -> None:
    """Set `p_lineage` (Holm over all given cells), `significant` (CI excludes 0 and p_lineage < α)
    and `resolution_limited` (resolution.py; a cell's own `n_boot` wins over the argument)."""
    for cell, adjusted in zip(cells, stats.holm_adjust([c.get("p") for c in cells])):
        cell["p_lineage"] = adjusted
        excludes = cell.get("lo") is not None and cell.get("hi") is not None and (cell["lo"] > 0 or cell["hi"] < 0)
        cell["significant"] = bool(excludes and adjusted is not None and adjusted < alpha)
    mark_limited(cells, n_boot)


def direction(cell: dict) -> str:
    return "increase" if (cell.get("delta") or cell.get("estimate") or 0) > 0 else "decrease"


def same_side(cell: dict, way: str) -> bool:
    """The cell's 95% CI excludes 0 on the `way` side."""
    lo, hi = cell.get("lo"), cell.get("hi")
    if lo is None or hi is None:
        return False
    return lo > 0 if way == "increase" else hi < 0


def gap(later: list[dict], steps: list[int] | None, after: int) -> str | None:
    """Why persistence cannot be observed at some later checkpoint (no cell, or no CI), else None."""
    have = {c["step"]: c for c in later}
    for step in sorted(set(have) | {s for s in steps or [] if s > after}):
        c = have.get(step)
        if c is None:
            return f"no data at step {step}"
        if c.get("lo") is None or c.get("hi") is None:
            return f"not enough data at step {step} ({c['repo_id']})"
    return None


def emergence(cells: list[dict], steps: list[int] | None = None) -> dict:
    """First significant checkpoint, direction and persistence of one quantity's cells (step order);
    `steps`: every member's step, so a member without a cell leaves persistence unknown."""
    first = next((i for i, c in enumerate(cells) if c.get("significant")), None)
    limited = [c["step"] for c in cells[:first] if c.get("resolution_limited")]
    if first is None:
        status = (
            (
                f"not resolvable: the CI excludes 0 at step(s) {', '.join(map(str, limited))} but the p cannot "
                "go low enough for the lineage-wide Holm (see the resolution note)"
            )
            if limited
            else "never significant"
        )
        return {
            "first_significant": None,
            "first_step": None,
            "direction": None,
            "persists": None,
            "status": status,
            "unresolved_steps": limited,
        }
    way, later = direction(cells[first]), cells[first + 1 :]
    out = {
        "first_significant": cells[first]["repo_id"],
        "first_step": cells[first]["step"],
        "direction": way,
        "unresolved_steps": limited,
    }  # earlier checkpoints the test could not resolve: it may have emerged there
    if not later and not [x for x in steps or [] if x > cells[first]["step"]]:
        return {**out, "persists": None, "status": "emerged at the last checkpoint (persistence not observable yet)"}
    broken = next(
        (c for c in later if c.get("lo") is not None and c.get("hi") is not None and not same_side(c, way)), None
    )
    missing = gap(later, steps, cells[first]["step"])
    if broken is None:
        return {
            **out,
            "persists": None if missing else True,
            "status": f"persistence unknown: {missing}" if missing else "persists",
        }
    opposite = "decrease" if way == "increase" else "increase"
    verb = "reversed" if same_side(broken, opposite) else "faded"
    return {**out, "persists": False, "status": f"{verb} at step {broken['step']} ({broken['repo_id']})"}


def feature_cells(members: list[dict]) -> dict[str, list[dict]]:
    """feature -> one cell per member (step order) from each member's stored Q1 result."""
    out: dict[str, list[dict]] = {}
    for m in members:
        for f in m["values"]["behavioral_delta"].get("features") or []:
            cell = {
                "repo_id": m["repo_id"],
                "step": m["step"],
                **{k: f.get(k) for k in CELL_KEYS},
                "q1_significant": f.get("significant"),
                "n_boot": m["values"]["behavioral_delta"].get("n_boot"),
            }
            out.setdefault(f["feature"], []).append(cell)
    return out


def step_changes(members: list[dict], tables: dict, n_boot: int, seed: int) -> list[dict]:
    """Paired feature Δ between consecutive members on their common tasks (None when a table is missing).

    Enough sign flips that the p floor stays below the Holm threshold over all its cells."""
    out, n_perm = [], max(n_boot, permutations_for(len(FEATURE_COLUMNS) * (len(members) - 1), ALPHA))
    for prev, cur in zip(members, members[1:]):
        step = {"from": prev["repo_id"], "to": cur["repo_id"], "from_step": prev["step"], "to_step": cur["step"]}
        if tables.get(prev["repo_id"]) is None or tables.get(cur["repo_id"]) is None:
            out.append({**step, "unavailable": "a post-RL trace table is not stored (re-materialize post_rl_traces)"})
            continue
        b, a = to_frame(tables[prev["repo_id"]]), to_frame(tables[cur["repo_id"]])
        paired_frames(b, a)  # task_id -> the pairing key every analysis shares (docs/audit.md, "Task identity")
        common = sorted(set(b["task_id"]) & set(a["task_id"]))
        if not common:
            out.append({**step, "unavailable": "the two checkpoints share no task"})
            continue
        rows = feature_deltas(b, a, common, stats.PairedResampler(len(common), n_perm, seed))
        out.append(
            {
                **step,
                "common_tasks": len(common),
                "features": {r["feature"]: {k: r.get(k) for k in ("delta", "lo", "hi", "p", "n_tasks")} for r in rows},
            }
        )
    holm_mark([c for s in out for c in (s.get("features") or {}).values()], n_boot=n_perm)
    return out


def how_it_moved(feature: str, cells: list[dict], steps: list[dict], way: str) -> dict:
    """gradual / at once / accumulated, from the significant same-direction steps of the run."""
    if any("unavailable" in s for s in steps):
        return {"shape": "unknown", "why": next(s["unavailable"] for s in steps if "unavailable" in s), "steps": []}
    moves = [(None, cells[0]["repo_id"])] if cells[0].get("significant") and same_side(cells[0], way) else []
    for s in steps:
        c = s["features"].get(feature) or {}
        if c.get("significant") and same_side(c, way):
            moves.append((s["from"], s["to"]))
    shape = "gradual" if len(moves) >= 2 else "at once" if moves else "accumulated"
    return {"shape": shape, "steps": [{"from": f or "base", "to": t} for f, t in moves]}


def feature_lineage(members: list[dict], tables: dict, n_boot: int, seed: int) -> tuple[list[dict], list[dict]]:
    """Per feature: cells, emergence, persistence and how it moved; plus the step-to-step comparisons."""
    by_feature = feature_cells(members)
    holm_mark([c for cells in by_feature.values() for c in cells])
    steps = step_changes(members, tables, n_boot, seed) if len(members) > 1 else []
    rows = []
    for feature, cells in by_feature.items():
        row = {"feature": feature, "cells": cells, **emergence(cells, [m["step"] for m in members])}
        if row["first_significant"] and len(members) > 1:
            row["moved"] = how_it_moved(feature, cells, steps, row["direction"])
        rows.append(row)
    return rows, steps
