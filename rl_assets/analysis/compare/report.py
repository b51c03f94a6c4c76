"""The cross-model comparison's report as content: model_comparison/comparison.{md,json,png} and the
narrow table the UI shows. Pure: returns text and PNG bytes, writes nothing."""

from __future__ import annotations

from rl_assets.analysis.pairing.report import near_miss_line, pairing_section
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.figures import figure_png
from rl_assets.analysis.render.report_md import (
    Report,
    fmt_ci,
    fmt_num,
    fmt_p,
    fmt_signed,
    json_text,
    jsonable,
    md_table,
)


def comparison_report(result: dict) -> Report:
    """comparison.md (full table), comparison.json and comparison.png; the UI summary has three columns."""
    png = plot(result)
    files = {"comparison.md": render(result), "comparison.json": json_text(jsonable(result)), "comparison.png": png}
    return Report(files, summary(result), {"comparison.png": png})


def render(result: dict) -> str:
    bench = result["benchmark"]
    lines = [
        f"# Model comparison on {md_text(bench['name'])} ({md_text(bench['id'])})",
        "",
        "Every model is compared on this one pinned benchmark; rows from other benchmarks are never ranked together.",
        f"Ranking: {result['ranking_rule']}. Δ is the mean per-task change in pass rate on common tasks, with a "
        "task-clustered bootstrap 95% interval; McNemar is exact on task-level flips.",
        "",
        md_table(
            ["model", "tasks", "baseline", "post-RL", "Δ", "95% CI", "noise floor ±", "McNemar p", "real change"],
            [
                [
                    md_code(r["model_id"]),
                    r["n_common_tasks"],
                    fmt_num(r["baseline_rate"]),
                    fmt_num(r["post_rate"]),
                    fmt_signed(r["delta"]),
                    fmt_ci(*r["ci95"], signed=True),
                    fmt_num(r["noise_floor"]),
                    fmt_p(r["mcnemar"]["p"]),
                    "yes" if r["significant"] and r["above_noise_floor"] else "no",
                ]
                for r in result["ranked"]
            ],
        ),
    ]
    if result["not_enough_data"]:
        lines += [
            "",
            "## Not ranked (not enough data, or not compared)",
            *[f"- {md_code(r['model_id'])}: {md_text(r['status'])}" for r in result["not_enough_data"]],
        ]
    if result.get("pairing"):
        lines += ["", *pairing_section(result["pairing"], group="model")]
        lines += [
            f"- {md_code(model)}: {line}"
            for model, near in result["pairing"]["near_misses"].items()
            if (line := near_miss_line(near))
        ]
    lines += [
        "",
        "## Excluded (no eval pair on this benchmark)",
        *([f"- {md_code(e['model_id'])}: {md_text(e['reason'])}" for e in result["excluded"]] or ["- none"]),
    ]
    return "\n".join(lines) + "\n"


def summary(result: dict) -> str:
    """The comparison narrow enough for the UI's metadata panel: three columns, the full table is in comparison.md."""
    rows = [
        [
            md_code(r["model_id"]),
            f"{fmt_signed(r['delta'])} {fmt_ci(*r['ci95'], signed=True)}",
            "yes" if r["significant"] and r["above_noise_floor"] else "no",
        ]
        for r in result["ranked"]
    ]
    lines = [
        f"On {md_text(result['benchmark']['name'])}: ranking {result['ranking_rule']}.",
        "",
        md_table(["model", "Δ pass rate [95% CI]", "real change"], rows) if rows else "No model has a matched pair.",
    ]
    lines += [f"- not ranked: {md_code(r['model_id'])} ({md_text(r['status'])})" for r in result["not_enough_data"]]
    lines += [f"- excluded: {md_code(e['model_id'])}" for e in result["excluded"]]
    return "\n".join(lines) + "\n\nNoise floors, McNemar p and the exclusion reasons: the `report` file.\n"


def plot(result: dict) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["ranked"]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.5 * max(1, len(rows))))
    ys = range(len(rows))
    ax.errorbar(
        [r["delta"] for r in rows],
        list(ys),
        xerr=[[r["delta"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["delta"] for r in rows]],
        fmt="o",
    )
    for y, r in zip(ys, rows):  # each model's own noise floor (its baseline rate and task count)
        if r["noise_floor"] == r["noise_floor"]:
            ax.plot(
                [-r["noise_floor"], r["noise_floor"]],
                [y, y],
                color="grey",
                lw=6,
                alpha=0.3,
                label="noise floor" if y == 0 else None,
            )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(list(ys), [r["model_id"] for r in rows])
    ax.set_xlabel(f"post-RL − baseline pass rate on {result['benchmark']['name']}")
    if ax.get_legend_handles_labels()[1]:
        ax.legend(loc="lower right")
    fig.tight_layout()
    return figure_png(fig, tight=False)
