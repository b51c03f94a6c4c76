"""Q4's report as content: Q4_solve_rate_by_context/solve_rate.{png,json,md}. Pure: returns text and
PNG bytes, writes nothing; the asset writes them."""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.render.figures import figure_png, ui_image_uri
from rl_assets.analysis.render.report_md import Report, fmt_ci, fmt_pct, json_text
from rl_assets.values.escape import md_table

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)


def solve_rate_report(result: dict[str, Any]) -> Report:
    """The plot, the JSON result and the markdown; the UI summary is the markdown with the plot's
    relative link replaced by the pixels themselves (a path would not load in the UI)."""
    png = render_png(result)
    md = render_markdown(result)
    files: dict[str, str | bytes] = {"solve_rate.png": png, "solve_rate.json": json_text(result), "solve_rate.md": md}
    return Report(files, md.replace("](solve_rate.png)", f"]({ui_image_uri(png)})"), {"solve_rate.png": png})


def render_markdown(r: dict[str, Any]) -> str:
    """Interpretation first, then one row per bin: n and solve rate per side, Newcombe CI of Δ."""
    b, a = r["before"], r["after"]
    dec = {row["bin"]: row for row in r["decomposition"]["per_bin"]}
    rows = []
    for rb, ra in zip(b["bins"], a["bins"]):
        if not (rb["n"] or ra["n"]):
            continue
        d = dec.get(rb["bin"], {})
        rows.append(
            [
                rb["bin"],
                rb["n"],
                ra["n"],
                f"{fmt_pct(rb['solved']['rate'])} {fmt_ci(rb['solved']['lo'], rb['solved']['hi'], pct=True)}",
                f"{fmt_pct(ra['solved']['rate'])} {fmt_ci(ra['solved']['lo'], ra['solved']['hi'], pct=True)}",
                fmt_pct(rb["timeout"]["rate"]) + " → " + fmt_pct(ra["timeout"]["rate"]),
                fmt_pct(rb["context_exceeded"]["rate"]) + " → " + fmt_pct(ra["context_exceeded"]["rate"]),
                fmt_pct(d.get("mix"), 2, signed=True),
                fmt_pct(d.get("within"), 2, signed=True),
            ]
        )
    table = md_table(
        [
            "bin",
            f"n {r['labels'][0]}",
            f"n {r['labels'][1]}",
            f"solve {r['labels'][0]}",
            f"solve {r['labels'][1]}",
            "timeout",
            "ctx exceeded",
            "mix part",
            "within part",
        ],
        rows,
    )
    return "\n".join(
        [
            "# Q4 — Solve rate by context length",
            "",
            r["interpretation"],
            "",
            f"Length: {r['labels'][0]} uses {b['length_source']}, {r['labels'][1]} uses {a['length_source']} "
            "(peak_prompt_tokens when recorded, else n_tokens). Bins are disjoint [lo, hi).",
            "",
            table,
            "",
            "![solve rate by context](solve_rate.png)",
            "",
        ]
    )


def render_png(result: dict[str, Any]) -> bytes:
    """Grouped bars (baseline vs post-RL) per bin with Wilson whiskers: share, solve, timeout, ctx."""
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [
        ("share", "share of rows"),
        ("solved", "solve rate"),
        ("timeout", "timeout rate"),
        ("context_exceeded", "context-exceeded rate"),
    ]
    keep = [
        i for i, (rb, ra) in enumerate(zip(result["before"]["bins"], result["after"]["bins"])) if rb["n"] or ra["n"]
    ]
    names = [result["before"]["bins"][i]["bin"] for i in keep]
    x = np.arange(len(names))
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))  # 2×2, not 1×4: legible when scaled to a page or the UI
    axes = axes.ravel()
    for ax, (key, title) in zip(axes, panels):
        for j, (side, label) in enumerate(zip(("before", "after"), result["labels"])):
            rows = [result[side]["bins"][i] for i in keep]
            if key == "share":
                vals = [r["share"] or 0 for r in rows]
                err = None
            else:
                vals = [r[key]["rate"] or 0 for r in rows]
                err = np.array(
                    [
                        [max(0, v - r[key]["lo"]) for v, r in zip(vals, rows)],
                        [max(0, r[key]["hi"] - v) for v, r in zip(vals, rows)],
                    ]
                )
                err[:, [r["n"] == 0 for r in rows]] = 0  # no whisker where there is no data
            ax.bar(x + (j - 0.5) * 0.4, vals, 0.4, yerr=err, capsize=3, label=f"{label} (n={result[side]['n']})")
        ax.set_title(title)
        ax.set_xticks(x, names, rotation=30)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=8)
    fig.suptitle("Outcomes by context length (disjoint bins, 95% Wilson intervals)")
    fig.tight_layout()
    return figure_png(fig, tight=False)
