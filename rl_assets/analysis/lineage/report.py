"""lineage.md: what emerged when, in words first, then the tables behind it (docs/lineage.md);
with lineage.json and the three plots, the run lineage's report folder as content (writes nothing).
The summary lines, table rows and training-side sections are built in report_summary.py,
report_tables.py and report_sections.py; this module lays out the page."""

from __future__ import annotations

from rl_assets.analysis.lineage.report_sections import curves_section, integrity_section, rollout_section
from rl_assets.analysis.lineage.report_summary import SHAPES, summary_lines
from rl_assets.analysis.lineage.report_tables import by_step, delta_cell, family_detail, member_rows
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.figures import ui_image_uri
from rl_assets.analysis.render.report_md import Report, bullet_list, json_text, jsonable, md_table

RULE = (
    "A change is **significant** at a checkpoint when its 95% CI vs the base excludes 0 and its p, "
    "Holm-adjusted over every (quantity, checkpoint) cell of this lineage, is < {alpha}; it **emerged** at the "
    "first such checkpoint (step order) and **persists** when every later checkpoint's CI still excludes 0 on "
    "the same side. ✱ marks significant cells. Method: docs/lineage.md."
)


def lineage_report(r: dict) -> Report:
    """runs/<job>/: features/labels/curves.png (when there are members), lineage.md (plots linked) and
    lineage.json; the UI summary is the same markdown with the plots inline."""
    from rl_assets.analysis.lineage import plots  # matplotlib: only when a report is drawn

    pngs = (
        {"features": plots.features_png(r), "labels": plots.labels_png(r), "curves": plots.curves_png(r)}
        if r["members"]
        else {}
    )
    files: dict[str, str | bytes] = {f"{name}.png": png for name, png in pngs.items()}
    files["lineage.md"] = render_markdown(r, {n: f"{n}.png" for n in pngs})
    files["lineage.json"] = json_text(jsonable(r))
    return Report(
        files,
        render_markdown(r, {n: ui_image_uri(p) for n, p in pngs.items()}),
        {f"{name}.png": png for name, png in pngs.items()},
    )


def render_markdown(r: dict, images: dict[str, str]) -> str:
    """`images`: plot name -> what to put in ![](…) (a file name for lineage.md, a data URI for the UI)."""
    members, steps = r["members"], [m["step"] for m in r["members"]]
    heads = [f"step {s}" for s in steps]
    pinned = r["pinned"]
    out = [
        f"# Run lineage: {md_text(r['job'])}",
        "",
        f"Pinned: benchmark {md_code(pinned['benchmark'])} ({md_text(pinned['rule'])}), "
        f"base {md_code(pinned['base_model'])}, baseline eval {md_code(pinned['baseline_eval'])}. Checkpoints are "
        "ordered by training step (rl_config, else the `-<step>-<size>` name).",
        "",
        "## Summary",
        "",
        bullet_list(summary_lines(r)),
        "",
        RULE.format(alpha=r["alpha"]),
        "",
    ]
    if members:
        out += [
            "## Checkpoints",
            "",
            md_table(
                [
                    "checkpoint",
                    "step",
                    "step from",
                    "solve rate [95% CI]",
                    "Δ solve rate vs base (paired)",
                    "judge: post-RL wins (decisive)",
                    "audit labels",
                ],
                member_rows(r),
                align="lrlllll",
            ),
            "",
        ]
        out += [
            "## Behaviour features vs the base",
            "",
            md_table(
                ["feature", *heads, "emerged", "persists", "how it moved"],
                [
                    [
                        f["feature"],
                        *by_step(f["cells"], steps, delta_cell),
                        f"step {f['first_step']}" if f["first_step"] else "—",
                        f["status"],
                        SHAPES.get((f.get("moved") or {}).get("shape"), "—"),
                    ]
                    for f in r["features"]
                ],
                align="l" + "r" * len(steps) + "lll",
            ),
            "",
            f"![features × checkpoints]({images.get('features', '')})",
            "",
        ]
        moved = [f for f in r["features"] if f.get("moved")]
        if moved and r["steps"] and all("features" in s for s in r["steps"]):
            out += [
                "## Step to step (consecutive checkpoints, paired on common tasks)",
                "",
                md_table(
                    ["feature", *[f"{s['from_step']} → {s['to_step']}" for s in r["steps"]]],
                    [[f["feature"], *[delta_cell(s["features"][f["feature"]]) for s in r["steps"]]] for f in moved],
                ),
                "",
            ]
        out += [
            "## Task families (learning audit)",
            "",
            md_table(
                ["family", *heads, "change label from", "persists", "Δ reward significant from"],
                [
                    [
                        md_text(fam["family"]),
                        *by_step(fam["cells"], steps, lambda c: md_text(c["label"])),
                        f"{md_text(fam['label_path']['label'])} at step {fam['label_path']['at_step']}"
                        if fam["label_path"]["label"]
                        else "—",
                        fam["label_path"]["status"],
                        f"step {fam['reward']['first_step']} ({fam['reward']['status']})"
                        if fam["reward"]["first_step"]
                        else fam["reward"]["status"],
                    ]
                    for fam in r["families"]
                ],
                align="l" + "l" * len(steps) + "lll",
            ),
            "",
            f"![labels × checkpoints]({images.get('labels', '')})",
            "",
            md_table(
                [
                    "family",
                    "step",
                    "reward before → after",
                    "Δ reward [95% CI]",
                    "format part",
                    "substance part",
                    "most imitated trivial strategy",
                    "label",
                ],
                family_detail(r),
                align="lrlrrrll",
            ),
            "",
        ]
        for miss in r["audit_missing"]:
            out.append(f"- no audit for step {miss['step']} ({md_code(miss['repo_id'])}): {md_text(miss['reason'])}")
    out += curves_section(r, images) + integrity_section(r) + rollout_section(r)
    if r["excluded"]:
        out += [
            "## Excluded checkpoints",
            "",
            md_table(
                ["checkpoint", "step", "why"],
                [
                    [md_code(e["repo_id"]), e["step"] if e["step"] is not None else "—", md_text(e["reason"])]
                    for e in r["excluded"]
                ],
                align="lrl",
            ),
            "",
        ]
    return "\n".join(out) + "\n"
