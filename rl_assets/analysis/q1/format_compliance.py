"""Q1's format-compliance finding: per task family (or benchmark), the share of attempts with no
extractable answer before vs after RL, with its interval, beside the pass rate (issue 35).

"Answer extraction up, accuracy flat" is a change of behaviour a team needs to see: RL often teaches the
output format first. The answer is the one the source recorded (the eval's own extraction); none, blank
or lm-evaluation-harness's ``[invalid]`` is "no extractable answer" (rl_assets/values/answers.py, the
audit's rule too). Counted over the attempts of the tasks both sides attempted, so a change of task mix
is not read as a change of format; Wilson intervals per side and Newcombe's for the change
(stats.two_proportion_diff_ci), at the attempt level (attempts of one task are not independent, so
with several attempts per task the intervals are narrower than a task-level one would be).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

from rl_assets.analysis import stats
from rl_assets.values.answers import no_answer

if TYPE_CHECKING:
    import pandas as pd

NOT_RECORDED = "no answer recorded on either side (the source keeps no extracted answer)"


def _group(row: Mapping[Hashable, Any]) -> str:  # a pandas record: keys typed Hashable
    family = row.get("task_family")
    return str(family) if family else str(row.get("benchmark") or "all")


def _side(rows: pd.DataFrame) -> dict[str, Any]:
    # a frame holds a missing answer as NaN, which no_answer (written for recorded values) would read as "nan"
    missing = int((rows["answer"].isna() | rows["answer"].map(no_answer)).sum())
    n = len(rows)
    lo, hi = stats.wilson_interval(missing, n)
    return {
        "attempts": n,
        "no_answer": missing,
        "no_answer_share": missing / n if n else None,
        "no_answer_ci": [lo, hi],
        "pass_rate": float((rows["reward_errors_as_zero"] >= 1.0).mean()) if n else None,
    }


def format_compliance(b: pd.DataFrame, a: pd.DataFrame) -> dict[str, Any]:
    """{"rows": one dict per family over the common tasks, "note": why there are none}."""
    if "answer" not in b.columns or "answer" not in a.columns:
        return {"rows": [], "note": NOT_RECORDED}
    if b["answer"].isna().all() and a["answer"].isna().all():
        return {"rows": [], "note": NOT_RECORDED}
    common = set(b["task_key"]) & set(a["task_key"])
    b, a = b[b["task_key"].isin(common)], a[a["task_key"].isin(common)]
    groups_b = b.assign(_group=[_group(r) for r in b.to_dict("records")])
    groups_a = a.assign(_group=[_group(r) for r in a.to_dict("records")])
    rows = []
    for name in sorted(set(groups_b["_group"]) | set(groups_a["_group"])):
        before, after = _side(groups_b[groups_b["_group"] == name]), _side(groups_a[groups_a["_group"] == name])
        if not before["attempts"] or not after["attempts"]:
            continue
        d, lo, hi = stats.two_proportion_diff_ci(
            before["no_answer"], before["attempts"], after["no_answer"], after["attempts"]
        )
        rows.append({"family": name, "before": before, "after": after, "change": {"estimate": d, "lo": lo, "hi": hi}})
    return {"rows": rows, "note": None if rows else "no task attempted by both sides"}


def summary_lines(result: dict[str, Any]) -> list[str]:
    """One line per family whose missing-answer share changed significantly (its CI excludes 0)."""
    from rl_assets.analysis.render.report_md import fmt_pct

    out = []
    for r in result["rows"]:
        c, b, a = r["change"], r["before"], r["after"]
        if c["lo"] > 0 or c["hi"] < 0:
            change = f"{fmt_pct(c['estimate'], signed=True)}, 95% CI {fmt_pct(c['lo'], signed=True)} to "
            change += fmt_pct(c["hi"], signed=True)
            out.append(
                f"Answers missing in {r['family']}: {b['no_answer']}/{b['attempts']} → {a['no_answer']}/"
                f"{a['attempts']} attempts ({change}), while the pass rate went {fmt_pct(b['pass_rate'])} → "
                f"{fmt_pct(a['pass_rate'])}."
            )
    return out


def table(result: dict[str, Any]) -> str:
    from rl_assets.analysis.render.escape import md_text
    from rl_assets.analysis.render.report_md import fmt_pct
    from rl_assets.values.escape import md_table

    if not result["rows"]:
        return md_text(result["note"] or "")

    def share(side: dict[str, Any]) -> str:
        lo, hi = side["no_answer_ci"]
        share = fmt_pct(side["no_answer_share"])
        return f"{side['no_answer']}/{side['attempts']} = {share} [{fmt_pct(lo)}, {fmt_pct(hi)}]"

    return md_table(
        ["family", "no answer before (95% CI)", "no answer after (95% CI)", "change (95% CI)", "pass rate"],
        [
            [
                md_text(r["family"]),
                share(r["before"]),
                share(r["after"]),
                f"{fmt_pct(r['change']['estimate'], signed=True)} [{fmt_pct(r['change']['lo'], signed=True)}, "
                f"{fmt_pct(r['change']['hi'], signed=True)}]",
                f"{fmt_pct(r['before']['pass_rate'])} → {fmt_pct(r['after']['pass_rate'])}",
            ]
            for r in result["rows"]
        ],
        align="lrrrr",
    )
