"""The lineage's three plots as PNG bytes: features × checkpoints, labels × checkpoints, curves."""

from __future__ import annotations

import numpy as np

from rl_assets.analysis.lineage.curves import METRICS
from rl_assets.analysis.render.figures import figure_png, pyplot

LABEL_COLORS = {
    "gamed": "#d62728",
    "mostly format": "#ff7f0e",
    "skill and format": "#f2c744",
    "real skill": "#2ca02c",
    "regressed": "#9467bd",
    "no change": "#e5e5e5",
    "no real gain": "#bdbdbd",
    "not enough data": "#ffffff",
}


def _png(fig) -> bytes:
    return figure_png(fig, dpi=90)


def _nothing(text: str) -> bytes:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 1))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=9)
    return _png(fig)


def features_png(r: dict) -> bytes:
    """Effect size d (colour, clipped to ±1.5) and Δ (text) per feature × checkpoint; * = significant."""
    plt = pyplot()
    steps = [m["step"] for m in r["members"]]
    feats = sorted(r["features"], key=lambda f: (f["first_step"] is None, f["feature"]))
    if not feats or not steps:
        return _nothing("no behavioural features to show")
    grid = np.full((len(feats), len(steps)), np.nan)
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(steps), 0.9 + 0.32 * len(feats)))
    for i, f in enumerate(feats):
        for c in f["cells"]:
            j = steps.index(c["step"])
            grid[i, j] = (
                c.get("effect_size")
                if c.get("effect_size") is not None
                else (0.0 if c.get("delta") is not None else np.nan)
            )
            if c.get("delta") is not None:
                ax.text(
                    j,
                    i,
                    f"{c['delta']:+.3g}{' *' if c.get('significant') else ''}",
                    ha="center",
                    va="center",
                    fontsize=7,
                )
    image = ax.imshow(np.clip(grid, -1.5, 1.5), cmap="RdBu_r", vmin=-1.5, vmax=1.5, aspect="auto")
    ax.set_xticks(range(len(steps)), [f"step {s}" for s in steps], fontsize=8)
    ax.set_yticks(range(len(feats)), [f["feature"] for f in feats], fontsize=8)
    fig.colorbar(image, ax=ax, label="effect size d vs base")
    ax.set_title(f"{r['job']}: behaviour Δ vs base (* significant, Holm over the lineage)", fontsize=9)
    return _png(fig)


def labels_png(r: dict) -> bytes:
    """The audit label of each family at each checkpoint, as a categorical heat map."""
    plt = pyplot()
    from matplotlib.colors import ListedColormap

    steps = [m["step"] for m in r["members"]]
    names = list(LABEL_COLORS)
    fams = r["families"]
    if not fams or not steps:
        return _nothing("no learning-audit families to show")
    grid = np.full((max(len(fams), 1), len(steps)), np.nan)
    fig, ax = plt.subplots(figsize=(1.8 + 1.5 * len(steps), 0.9 + 0.4 * max(len(fams), 1)))
    for i, fam in enumerate(fams):
        for c in fam["cells"]:
            j = steps.index(c["step"])
            if c["label"] in LABEL_COLORS:
                grid[i, j] = names.index(c["label"])
            ax.text(j, i, c["label"] or "—", ha="center", va="center", fontsize=7)
    ax.imshow(grid, cmap=ListedColormap(list(LABEL_COLORS.values())), vmin=-0.5, vmax=len(names) - 0.5, aspect="auto")
    ax.set_xticks(range(len(steps)), [f"step {s}" for s in steps], fontsize=8)
    ax.set_yticks(range(len(fams)), [f["family"] for f in fams], fontsize=8)
    ax.set_title(f"{r['job']}: learning-audit label per family and checkpoint", fontsize=9)
    return _png(fig)


def curves_png(r: dict) -> bytes:
    """Training-metric curves with a dashed line per checkpoint; moved rollout series (scaled 0–1) below."""
    plt = pyplot()
    data = r["curves"]["data"] or {}
    metrics = [m for m in METRICS if any(v is not None for v in data.get(m) or [])]
    moved = [s for s in (r["rollouts"].get("series") or []) if s.get("moved") and s.get("per_step")]
    rows = len(metrics) + bool(moved) or 1
    fig, axes = plt.subplots(rows, 1, figsize=(8, 1.8 * rows), sharex=True, squeeze=False)
    axes = axes[:, 0]
    for ax, metric in zip(axes, metrics):
        ax.plot(data["step"], [np.nan if v is None else v for v in data[metric]], lw=1.2)
        ax.set_ylabel(metric, fontsize=8)
    if moved:
        ax = axes[len(metrics)]
        for s in moved:
            xs, ys = zip(*s["per_step"])
            ys = np.asarray(ys, float)
            span = np.ptp(ys) or 1.0
            (line,) = ax.plot(xs, (ys - ys.min()) / span, lw=1, label=s["series"])
            if s.get("window"):
                ax.axvspan(*s["window"], color=line.get_color(), alpha=0.12)
        ax.set_ylabel("rollouts (0–1)", fontsize=8)
        ax.legend(fontsize=6, ncol=2)
    for ax in axes:
        for m in r["members"]:
            ax.axvline(m["step"], ls="--", lw=0.8, color="k")
    for m in r["members"]:
        axes[0].annotate(
            f"step {m['step']}",
            (m["step"], 1.0),
            xycoords=("data", "axes fraction"),
            fontsize=7,
            ha="center",
            va="bottom",
        )
    _mark_onsets(axes, r.get("integrity") or {})
    axes[-1].set_xlabel("training step")
    return _png(fig)


def _mark_onsets(axes, integrity: dict) -> None:
    """Reward-integrity onsets as red lines (signal named), behaviour/label emergence as purple dots."""
    for o in integrity.get("onsets") or []:
        for ax in axes:
            ax.axvline(o["step"], color="tab:red", lw=1.2)
        axes[0].annotate(
            o["signal"],
            (o["step"], 0.95),
            xycoords=("data", "axes fraction"),
            fontsize=6,
            rotation=90,
            va="top",
            ha="right",
            color="tab:red",
        )
    for e in integrity.get("events") or []:
        if e["kind"] != "integrity onset":
            axes[-1].annotate(
                e["what"],
                (e["step"], 0.05),
                xycoords=("data", "axes fraction"),
                fontsize=6,
                rotation=90,
                va="bottom",
                ha="left",
                color="tab:purple",
            )
