"""The lineage report's table rows: a cell per checkpoint step, the checkpoints table and the
task families' per-step detail."""

from __future__ import annotations

from rl_assets.analysis.render.escape import md_code, md_text
from rl_assets.analysis.render.report_md import fmt_ci, fmt_num, fmt_pct, fmt_signed


def by_step(cells: list[dict], steps: list[int], fmt) -> list[str]:
    """One formatted cell per lineage step ("—" where that checkpoint has none)."""
    at = {c["step"]: c for c in cells}
    return [fmt(at[s]) if s in at else "—" for s in steps]


def delta_cell(c: dict) -> str:
    if c.get("delta") is None:
        return "not enough data" if c.get("not_enough_data") else "—"
    mark = " ✱" if c.get("significant") else ""
    return f"{fmt_signed(c['delta'])} {fmt_ci(c.get('lo'), c.get('hi'))}{mark}"


def member_rows(r: dict) -> list[list]:
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
                md_code(m["step_source"]),  # `global_step_<N>` shown as written
                f"{fmt_pct(sr['rate'])} {fmt_ci(sr['lo'], sr['hi'], pct=True)} (base {fmt_pct(base['rate'])})",
                delta,
                judge,
                ", ".join(f"{md_text(k)}: {md_text(v)}" for k, v in sorted(m["labels"].items())) or "—",
            ]
        )
    return rows


def family_detail(r: dict) -> list[list]:
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
                    delta_cell(c),
                    fmt_num(c.get("format_gain")),
                    fmt_num(c.get("substance_gain")),
                    imitation,
                    f"**{md_text(c['label'])}**",
                ]
            )
    return rows
