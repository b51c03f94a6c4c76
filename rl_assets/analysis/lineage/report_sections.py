"""The lineage report's training-side sections: the training curves at the checkpoints, the reward
integrity onsets beside the emergence points, and when the RL rollouts moved."""

from __future__ import annotations

from rl_assets.analysis.lineage.report_summary import between
from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import fmt_num, fmt_p, md_table


def curves_section(r: dict, images: dict[str, str]) -> list[str]:
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


def integrity_section(r: dict) -> list[str]:
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
                        between(next(o for o in integ["onsets"] if o["signal"] == e["what"]))
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


def rollout_section(r: dict) -> list[str]:
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
