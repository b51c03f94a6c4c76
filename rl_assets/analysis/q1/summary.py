"""Q1's human summary: what changed, in words, most important first (report.md's summary)."""

from __future__ import annotations

from typing import Any


def summary_lines(r: dict[str, Any]) -> list[str]:
    """The summary lines of a compute_behavioral_delta result."""
    from rl_assets.analysis.render.report_md import fmt_num, fmt_p, fmt_pct, fmt_signed

    if r.get("invalid_for_comparison"):
        return [f"Not comparable: {r['invalid_for_comparison']}."]
    pr, fl = r["paired"]["passed"], r["task_flips"]
    lines = []
    if "estimate" in pr:
        verdict = "a significant change" if pr["lo"] > 0 or pr["hi"] < 0 else "no significant change"
        lines.append(
            f"Solve rate on {r['common_tasks']} common tasks: {fmt_pct(pr['before'])} → {fmt_pct(pr['after'])} "
            f"({fmt_pct(pr['estimate'], signed=True)}, 95% CI {fmt_pct(pr['lo'], signed=True)} to "
            f"{fmt_pct(pr['hi'], signed=True)}): {verdict}; smallest change this sample detects "
            f"(80% power) ≈ {fmt_pct(r['mde_solve_rate']['mde'], signed=True).lstrip('+')}."
        )
    else:
        lines.append(f"Solve rate: not enough data for a paired interval ({pr.get('reason')}).")
    lines.append(
        f"Task flips: {fl['newly_passing']} newly passing vs {fl['newly_failing']} newly failing "
        f"(exact McNemar p = {fmt_p(fl['mcnemar_p'])})."
    )
    sig = [f for f in r["features"] if f["significant"]]
    nominal = [f for f in r["features"] if f.get("ci_excludes_zero") and not f["significant"]]
    for f in sorted(sig, key=lambda f: -abs(f.get("effect_size") or 0)):
        word = "increased" if f["delta"] > 0 else "decreased"
        lines.append(
            f"**{f['feature']}** {word}: {fmt_num(f['before'])} → {fmt_num(f['after'])} "
            f"(Δ {fmt_signed(f['delta'])}, CI {fmt_num(f['lo'])} to {fmt_num(f['hi'])}, "
            f"d = {fmt_num(f.get('effect_size'), 2)}, Holm p = {fmt_p(f['p_holm'])})."
        )
    tested = [f for f in r["features"] if not f.get("not_enough_data")]
    if not tested:
        lines.append(
            "Behavioural features: not enough data to test any of them "
            f"({r['features'][0]['not_enough_data'] if r['features'] else 'no features'})."
        )
    elif not sig:
        lines.append("No behavioural feature changed significantly after the Holm correction.")
    if nominal:
        lines.append(
            "Nominal only (95% CI excludes 0 but not after correcting for "
            f"{len(r['features'])} comparisons): " + ", ".join(f["feature"] for f in nominal) + "."
        )
    return lines
