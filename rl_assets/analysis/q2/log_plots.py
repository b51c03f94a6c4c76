"""PNG plots of the per-step table (matplotlib Agg, returned as bytes so callers write atomically)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rl_assets.analysis.render.figures import figure_png, pyplot

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

PANELS = (("kl", "KL"), ("grad_norm", "grad norm"), ("entropy", "entropy"))


def _png(fig: Figure) -> bytes:
    return figure_png(fig)


def _line(steps: pd.DataFrame, col: str, label: str) -> bytes:
    plt = pyplot()
    s = steps[["step", col]].dropna()
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(s["step"], s[col], lw=1.2)
    ax.set_xlabel("training step")
    ax.set_ylabel(label)
    ax.set_title(f"{label} per step")
    ax.grid(alpha=0.3)
    return _png(fig)


def training_plots(steps: pd.DataFrame, ema_values: list[float] | None = None) -> dict[str, bytes]:
    """{file name: PNG bytes} for the panels that have data."""
    plt = pyplot()
    out: dict[str, bytes] = {}
    if steps.empty:
        return out
    steps = steps.sort_values("step")
    if "reward" in steps and steps["reward"].notna().any():
        s = steps[["step", "reward"]].dropna()
        fig, ax = plt.subplots(figsize=(7, 3))
        ax.plot(s["step"], s["reward"], lw=0.8, alpha=0.45, label="reward")
        if ema_values is not None and len(ema_values) == len(s):
            ax.plot(s["step"], ema_values, lw=2, label="trailing EMA (alpha 1/3)")
        ax.set_xlabel("training step")
        ax.set_ylabel("reward")
        ax.legend(loc="best")
        ax.grid(alpha=0.3)
        ax.set_title("reward per step")
        out["reward_ema.png"] = _png(fig)
    for col, label in PANELS:
        if col in steps and steps[col].notna().any():
            out[f"{col}.png"] = _line(steps, col, label)
    err_cols = [c for c in steps.columns if c.startswith("batch_errors/avg_")]
    if err_cols:
        fig, ax = plt.subplots(figsize=(7, 3))
        for c in err_cols:
            s = steps[["step", c]].dropna()
            ax.plot(s["step"], s[c], lw=1, label=c.split("/avg_", 1)[1])
        ax.set_xlabel("training step")
        ax.set_ylabel("errors per batch")
        ax.set_title("batch errors by exception")
        ax.legend(loc="best", fontsize=7)
        ax.grid(alpha=0.3)
        out["batch_errors.png"] = _png(fig)
    return out
