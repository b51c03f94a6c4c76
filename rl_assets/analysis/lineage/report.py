"""lineage.md: what emerged when, in words first, then the tables behind it (docs/lineage.md);
with lineage.json and the three plots, the run lineage's report folder as content (writes nothing)."""

from __future__ import annotations

from rl_assets.analysis.escape import md_code, md_text
from rl_assets.analysis.figures import ui_image_uri
from rl_assets.analysis.report_md import (
    Report,
    bullet_list,
    fmt_ci,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_signed,
    json_text,
    jsonable,
    md_table,
)

RULE = (
    "A change is **significant** at a checkpoint when its 95% CI vs the base excludes 0 and its p, "
    "Holm-adjusted over every (quantity, checkpoint) cell of this lineage, is < {alpha}; it **emerged** at the "
    "first such checkpoint (step order) and **persists** when every later checkpoint's CI still excludes 0 on "
    "the same side. ✱ marks significant cells. Method: docs/lineage.md."
)


SHAPES = {
    "gradual": "gradually",
    "at once": "at once",
    "accumulated": "by accumulation (no single step significant)",
    "unknown": "in an unknown way (no step-to-step test)",
}


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


def _short(repo_id: str | None) -> str:
    return md_text(repo_id.split("/", 1)[-1]) if repo_id else "—"


def summary_lines(r: dict) -> list[str]:
    members, pinned = r["members"], r["pinned"]
    if not members:
        return [
            f"No analysed checkpoint of {md_code(r['job'])} can enter the lineage yet ({len(r['excluded'])} excluded)."
        ]
    lines = [
        f"{len(members)} checkpoint(s) of {md_code(r['job'])} at step(s) "
        f"{', '.join(str(m['step']) for m in members)}, each "
        f"compared with {md_code(pinned['base_model'])} on {md_code(pinned['benchmark'])}"
        + (f"; {len(r['excluded'])} excluded (see below)." if r["excluded"] else ".")
    ]
    emerged = [f for f in r["features"] if f["first_significant"]]
    for f in emerged:
        moved = f.get("moved") or {}
        how = (
            f"; moved {SHAPES[moved['shape']]}"
            + (f" ({len(moved['steps'])} significant steps)" if moved.get("steps") else "")
            if moved
            else ""
        )
        earlier = (
            f" (not resolvable at step(s) {', '.join(map(str, f['unresolved_steps']))}: it may have emerged earlier)"
            if f.get("unresolved_steps")
            else ""
        )
        lines.append(
            f"**{f['feature']}** {f['direction']}d: significant from step {f['first_step']} "
            f"({_short(f['first_significant'])}){earlier}; {f['status']}{how}."
        )
    if not emerged:
        unresolved = any(f.get("unresolved_steps") for f in r["features"])
        lines.append(
            "No behavioural feature changed significantly at any checkpoint"
            + (", but some could not be resolved (below)." if unresolved else ".")
        )
    for n in r.get("resolution") or []:
        lines.append(
            f"Not resolvable: {n['limited']} of the {n['cells']} cells of {n['what']} have a 95% CI that "
            f"excludes 0 but a p at the test's floor, above the Holm threshold {fmt_p(n['holm_threshold'])}; "
            f"set the settings resource's n_boot to at least {n['n_boot_needed']} and re-materialize."
        )
    for fam in r["families"]:
        path = fam["label_path"]
        if path["label"]:
            lines.append(
                f"**{md_text(fam['family'])}**: {md_text(path['label'])} from step {path['at_step']} "
                f"({_short(path['at'])}); "
                f"{path['status']}; reward change {_reward_emergence(fam['reward'])}."
            )
    quiet = [fam["family"] for fam in r["families"] if not fam["label_path"]["label"]]
    if quiet:
        lines.append("No change label at any checkpoint: " + ", ".join(md_text(f) for f in quiet) + ".")
    integ = r.get("integrity") or {}
    if integ.get("verdict"):
        lines.append(
            f"Reward integrity ({_short(integ['source'])}): **{integ['verdict']}**"
            + "".join(f"; {o['signal']} from step {o['step']} ({_between(o)})" for o in integ["onsets"])
            + "."
        )
    for s in (r["rollouts"].get("series") or []) if r["rollouts"].get("applicable") else []:
        if s["moved"] and s.get("window"):
            lines.append(
                f"Rollouts: {md_text(s['series'])} {s['direction']}d over training, mostly between steps "
                f"{s['window'][0]} and {s['window'][1]} (Spearman rho {fmt_num(s['rho'], 2)})."
            )
    return lines


def _between(o: dict) -> str:
    """'after step 10, by step 20': the checkpoints saved around an onset."""
    before = f"after step {o['before_step']}" if o["before"] else "before the first checkpoint"
    return before + (f", by step {o['after_step']}" if o["after"] else ", after the last checkpoint")


def _integrity_section(r: dict) -> list[str]:
    integ = r.get("integrity") or {}
    out = ["## Reward integrity onsets beside the emergence points", ""]
    if not integ.get("verdict"):
        out += [f"No reward-integrity verdict: {md_text(integ.get('reason') or 'not computed')}.", ""]
    else:
        out += [
            f"Verdict from the training logs of {md_code(integ['source'])}: **{integ['verdict']}** "
            f"({md_text(integ.get('reason') or '')}). Red lines in the curves plot mark the onsets.",
            "",
        ]
    if integ.get("events"):
        out += [
            md_table(
                ["step", "kind", "what", "checkpoints around it"],
                [
                    [
                        e["step"],
                        e["kind"],
                        md_text(e["what"]),
                        _between(next(o for o in integ["onsets"] if o["signal"] == e["what"]))
                        if e["kind"] == "integrity onset"
                        else "—",
                    ]
                    for e in integ["events"]
                ],
                align="rlll",
            ),
            "",
        ]
    return out


def _reward_emergence(e: dict) -> str:
    """When a family's reward change became significant by the lineage's rule (emergence.emergence)."""
    if not e["first_step"]:
        return e["status"]
    return f"significant from step {e['first_step']}, {e['status']}"


def _by_step(cells: list[dict], steps: list[int], fmt) -> list[str]:
    """One formatted cell per lineage step ("—" where that checkpoint has none)."""
    at = {c["step"]: c for c in cells}
    return [fmt(at[s]) if s in at else "—" for s in steps]


def _delta_cell(c: dict) -> str:
    if c.get("delta") is None:
        return "not enough data" if c.get("not_enough_data") else "—"
    mark = " ✱" if c.get("significant") else ""
    return f"{fmt_signed(c['delta'])} {fmt_ci(c.get('lo'), c.get('hi'))}{mark}"


def _member_rows(r: dict) -> list[list]:
    rows = []
    for m in r["members"]:
        sr, base, d = m["solve_rate"], m["base_solve_rate"], m["solve_rate_delta"]
        judge = (f"{md_text(m['judge']['judge'])}: " if m["judge"] else "") + "; ".join(
            f"{md_text(name)} {fmt_pct(p['win_rate'])} {fmt_ci(*(p['ci'] or [None, None]), pct=True)}"
            if p["win_rate"] is not None
            else f"{md_text(name)}: no decisive pair"
            for name, p in ((m["judge"] or {}).get("probes") or {}).items()
        ) or "not run"
        delta = (
            f"{fmt_pct(d['estimate'], signed=True)} {fmt_ci(d['lo'], d['hi'], pct=True, signed=True)}"
            if d.get("estimate") is not None
            else f"not enough data ({md_text(d.get('reason'))})"
        )
        rows.append(
            [
                md_code(m["repo_id"]),
                m["step"],
                m["step_source"],
                f"{fmt_pct(sr['rate'])} {fmt_ci(sr['lo'], sr['hi'], pct=True)} (base {fmt_pct(base['rate'])})",
                delta,
                judge,
                ", ".join(f"{md_text(k)}: {md_text(v)}" for k, v in sorted(m["labels"].items())) or "—",
            ]
        )
    return rows


def _family_detail(r: dict) -> list[list]:
    rows = []
    for fam in r["families"]:
        for c in fam["cells"]:
            im = c.get("imitation") or {}
            imitation = (
                f"{md_text(im['strategy'])}: {fmt_pct(im.get('imitation'))} (before "
                f"{fmt_pct(im.get('imitation_before'))})"
                if im
                else "—"
            )
            rows.append(
                [
                    md_text(fam["family"]),
                    c["step"],
                    f"{fmt_num(c['reward_before'])} → {fmt_num(c['reward_after'])}",
                    _delta_cell(c),
                    fmt_num(c.get("format_gain")),
                    fmt_num(c.get("substance_gain")),
                    imitation,
                    f"**{md_text(c['label'])}**",
                ]
            )
    return rows


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
                _member_rows(r),
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
                        *_by_step(f["cells"], steps, _delta_cell),
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
                    [[f["feature"], *[_delta_cell(s["features"][f["feature"]]) for s in r["steps"]]] for f in moved],
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
                        *_by_step(fam["cells"], steps, lambda c: md_text(c["label"])),
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
                _family_detail(r),
                align="lrlrrrll",
            ),
            "",
        ]
        for miss in r["audit_missing"]:
            out.append(f"- no audit for step {miss['step']} ({md_code(miss['repo_id'])}): {md_text(miss['reason'])}")
    out += _curves_section(r, images) + _integrity_section(r) + _rollout_section(r)
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


def _curves_section(r: dict, images: dict[str, str]) -> list[str]:
    c = r["curves"]
    out = [
        "## Training curves with the checkpoints",
        "",
        f"From {md_text(c['note'])}." if c["source"] else f"No curves: {md_text(c['note'])}.",
        "",
    ]
    if c["source"]:
        out += [
            md_table(
                ["checkpoint step", "logged step", "reward", "entropy", "KL", "response length"],
                [
                    [
                        a["step"],
                        a["logged_step"],
                        fmt_num(a["reward"]),
                        fmt_num(a["entropy"]),
                        fmt_num(a["kl"], 4),
                        fmt_num(a["response_length"], 0),
                    ]
                    for a in c["at_checkpoints"]
                ],
            ),
            "",
            f"![training curves with checkpoints]({images.get('curves', '')})",
            "",
        ]
    return out


def _rollout_section(r: dict) -> list[str]:
    ro = r["rollouts"]
    out = ["## RL rollouts: when behaviour moved during training", ""]
    if not ro.get("applicable"):
        return out + [f"Not applicable: {md_text(ro['reason'])}.", ""]
    out += [
        f"{ro['placed_on_steps']} of {ro['rollouts']} rollouts of {md_code(ro['source'])} placed on training steps "
        "(first step that ended at or after the rollout). Spearman rho of step vs value with a permutation p, "
        "Holm over all series; window = the steps over which the middle half of the move happened.",
        "",
        md_table(
            ["series", "rho", "Holm p", "moved", "window (steps)"],
            [
                [
                    md_text(s["series"]),
                    fmt_num(s["rho"], 2),
                    fmt_p(s["p_holm"]),
                    s.get("direction", "no") if s["moved"] else "no",
                    f"{s['window'][0]}–{s['window'][1]}" if s.get("window") else "—",
                ]
                for s in ro["series"]
            ],
        ),
        "",
    ]
    for family, why in (ro.get("imitation_not_available") or {}).items():
        out.append(f"- imitation share of gamed family {md_text(family)}: not available ({md_text(why)})")
    return out
