"""The integrity picture: reward-side curves, response length and entropy per step, with every
onset (and, from the run lineage, checkpoints and emergence points) marked as vertical lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rl_assets.analysis.render.figures import figure_png, pyplot
from rl_assets.values.metric_aliases import REWARD_TERM_PREFIX as TERM_PREFIX

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

REWARD_SIDE = ("reward", "task_score", "val_score")
PANELS = (("response_length", "response length"), ("entropy", "entropy"))


def _merged(marks: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """One label per step (one line per mark), so onsets at the same step do not print over each other."""
    by_step: dict[int, list[str]] = {}
    for step, text in marks:
        by_step.setdefault(step, []).append(text)
    return [(step, "\n".join(texts)) for step, texts in sorted(by_step.items())]


def curves_plot(
    steps: pd.DataFrame, marks: list[tuple[int, str]], title: str, dashed: list[tuple[int, str]] | None = None
) -> bytes | None:
    """PNG of the curves the table has; `marks` (step, label) as solid red lines (onsets), `dashed`
    as grey dashed lines (checkpoints, emergence points). None when no curve is logged."""
    steps = steps.sort_values("step")
    reward_cols = [
        c for c in steps.columns if (c in REWARD_SIDE or c.startswith(TERM_PREFIX)) and steps[c].notna().any()
    ]
    panels = [(reward_cols, "reward and its parts")] if reward_cols else []
    panels += [([c], label) for c, label in PANELS if c in steps.columns and steps[c].notna().any()]
    if not panels:
        return None
    fig, axes = pyplot().subplots(len(panels), 1, figsize=(8, 2.6 * len(panels)), sharex=True, squeeze=False)
    for ax, (cols, label) in zip(axes[:, 0], panels):
        for c in cols:
            s = steps[["step", c]].dropna()
            style = {"marker": "o", "ls": "-"} if c == "val_score" else {}
            ax.plot(s["step"], s[c], lw=1.2, label=c.removeprefix(TERM_PREFIX), **style)
        for step, _label in marks:
            ax.axvline(step, color="tab:red", lw=1.2)
        for step, _label in dashed or []:
            ax.axvline(step, color="grey", lw=0.8, ls="--")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        if len(cols) > 1:
            ax.legend(loc="best", fontsize=7)
    top = axes[0, 0]
    for i, (step, text) in enumerate(_merged(marks + (dashed or []))):  # staggered: close steps stay legible
        top.annotate(
            text,
            (step, 1.0 - 0.45 * (i % 2)),
            xycoords=("data", "axes fraction"),
            xytext=(3, -3),
            textcoords="offset points",
            fontsize=6,
            va="top",
            ha="left",
            bbox={"fc": "white", "alpha": 0.7, "lw": 0},
        )
    axes[-1, 0].set_xlabel("training step")
    top.set_title(title)
    return figure_png(fig)
