"""The lineage report's summary: what emerged when, in words (lineage.md's "## Summary", and the
lines run_lineage logs); the phrases the sections share (how a change moved, the checkpoints
around an onset)."""

from __future__ import annotations

from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import fmt_num, fmt_p

SHAPES = {
    "gradual": "gradually",
    "at once": "at once",
    "accumulated": "by accumulation (no single step significant)",
    "unknown": "in an unknown way (no step-to-step test)",
}


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
            + "".join(f"; {o['signal']} from step {o['step']} ({between(o)})" for o in integ["onsets"])
            + "."
        )
    for s in (r["rollouts"].get("series") or []) if r["rollouts"].get("applicable") else []:
        if s["moved"] and s.get("window"):
            lines.append(
                f"Rollouts: {md_text(s['series'])} {s['direction']}d over training, mostly between steps "
                f"{s['window'][0]} and {s['window'][1]} (Spearman rho {fmt_num(s['rho'], 2)})."
            )
    return lines


def between(o: dict) -> str:
    """'after step 10, by step 20': the checkpoints saved around an onset."""
    before = f"after step {o['before_step']}" if o["before"] else "before the first checkpoint"
    return before + (f", by step {o['after_step']}" if o["after"] else ", after the last checkpoint")


def _reward_emergence(e: dict) -> str:
    """When a family's reward change became significant by the lineage's rule (emergence.emergence)."""
    if not e["first_step"]:
        return e["status"]
    return f"significant from step {e['first_step']}, {e['status']}"
