"""Q3's reports as content: the trace-pairs page (pairs.html, rendered by pairs_html) with the table
of selected pairs, and the temporal overlay (overlay.json, overlay.png, the markers table). Pure:
returns text and PNG bytes, writes nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from rl_assets.analysis.q3.overlay import plotted_ts
from rl_assets.analysis.q3.pairs import Pair
from rl_assets.analysis.q3.pairs_html import render_page
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.figures import figure_png
from rl_assets.analysis.render.report_md import Report, fmt_num, json_text, jsonable
from rl_assets.values.escape import md_table


def selected_rows(pairs: list[Pair]) -> list[dict[str, Any]]:
    """One JSON-able row per shown pair: task, why it was selected, where the two sides diverge."""
    return [
        {
            "task_id": p.task_id,
            "reason": p.reason,
            "divergence_action": p.alignment.divergence,
            "base_attempt": p.base.shown.get("attempt"),
            "post_attempt": p.post.shown.get("attempt"),
        }
        for p in pairs
    ]


def selected_table(rows: list[dict[str, Any]]) -> str:
    """The "selected" metadata table; task ids and actions come from the traces, so they stay inert text."""
    return md_table(
        ["task", "selected because", "diverges at action"],
        [[md_code(r["task_id"]), md_text(r["reason"]), md_code(r["divergence_action"])] for r in rows],
        align="---",
    )


def pairs_report(pairs: list[Pair], **page: Any) -> Report:
    """Q3_trace_pairs/pairs.html (one self-contained page; `page` = render_page's keywords) and the
    selected-pairs table for the UI."""
    return Report({"pairs.html": render_page(pairs, **page)}, selected_table(selected_rows(pairs)), {})


def markers_table(result: dict[str, Any]) -> str:
    """The eval markers as a table: label, time, trials, mean reward."""
    return md_table(
        ["marker", "time (UTC)", "n", "mean reward"],
        [[md_text(m["label"]), m["timestamp"] or "none", m["n"], fmt_num(m["mean_reward"])] for m in result["eval"]],
        align="----",
    )


def overlay_report(result: dict[str, Any]) -> Report:
    """Q3_temporal_overlay/overlay.json and overlay.png, with the markers table as the UI summary. Both files
    are rendered before either is written, so the folder is replaced once, whole: a plot that fails leaves
    the previous numbers and plot together (a new overlay.json beside an old plot would disagree with it)."""
    png = plot_overlay(result)
    return Report(
        {"overlay.json": json_text(jsonable(result)), "overlay.png": png}, markers_table(result), {"overlay.png": png}
    )


def plot_overlay(result: dict[str, Any]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 5))
    rl = result["rl"]
    if rl and rl["points"]:
        pts = [p for p in rl["points"] if p["mean_reward"] is not None]
        ax.plot(
            # matplotlib plots datetimes through its units registry; its stubs type x as numbers only
            [plotted_ts(p["t"]) for p in pts],  # type: ignore[arg-type]
            [p["mean_reward"] for p in pts],
            marker="o",
            ms=3,
            lw=1.5,
            color="#1f77b4",
            label=f"RL rollouts, {rl['bin_hours']:g} h UTC bins",
        )
    style = {"baseline": ("s", "#666666", "baseline eval"), "post_rl": ("D", "#d62728", "post-RL eval")}
    for m in result["eval"]:
        if not m["plotted"]:
            continue
        shape, colour, legend = style.get(m["kind"], ("o", "k", m["kind"]))
        x = plotted_ts(m["timestamp"]) + timedelta(seconds=m["x_offset_s"])
        ax.scatter(
            [x],  # type: ignore[arg-type]  # a datetime, as on the line above
            [m["mean_reward"]],
            marker=shape,
            s=80,
            color=colour,
            zorder=3,
            label=legend,
        )
        if m["co_located"]:
            ax.axvline(plotted_ts(m["timestamp"]), ls=":", color="#999999", lw=1)  # type: ignore[arg-type]  # datetime
        ax.annotate(
            f"{m['label']}: {m['mean_reward']:.3f} (n={m['n']})",
            (x, m["mean_reward"]),
            textcoords="offset points",
            xytext=(8, 10 + 14 * m["label_slot"]),
            fontsize=8,
            color=colour,
        )
    ax.set_ylim(-0.05, 1.1)
    ax.set_ylabel("mean reward")
    ax.set_xlabel("time (UTC)")
    title = result["title"] + "".join(f"\n{n}" for n in result["notes"])
    ax.set_title(title, fontsize=10)
    fig.text(0.01, 0.01, "reward: " + result["reward_definition"], fontsize=7, color="#444444")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    if unique:
        ax.legend(unique.values(), unique.keys(), fontsize=8, loc="lower right")
    fig.autofmt_xdate()
    return figure_png(fig)
