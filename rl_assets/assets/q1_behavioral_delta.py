"""`behavioral_delta` (Q1): what RL changed in behaviour, with intervals, paired tests and flips.

Reads the two normalized trace tables, calls the pure analysis, writes
`<reports>/<slug>/Q1_behavioral_delta/report.{md,json}` and checks that the comparison is valid.
"""


import json
from pathlib import Path

import dagster as dg
from dagster import AssetExecutionContext

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis import stats
from rl_assets.analysis.q1.behavioral_delta import NEEDED, compute_behavioral_delta
from rl_assets.analysis.report_md import (
    bullet_list, fmt_ci, fmt_num, fmt_p, fmt_pct, fmt_signed, jsonable, md_table,
)
from rl_assets.fileutil import atomic_write_text
from rl_assets.partitions import models_partitions
from rl_assets.store import report_dir
from rl_assets.analysis.escape import md_code, md_text

ASSET = "behavioral_delta"


def _feature_table(features: list[dict]) -> str:
    rows = []
    for f in sorted(features, key=lambda f: (not f["significant"], -abs(f.get("effect_size") or 0))):
        if "delta" not in f:
            rows.append([f["feature"], fmt_num(f["before_all_traces"]), fmt_num(f["after_all_traces"]), "—", "—", "—",
                         "—", "—", f"not enough data: {f['not_enough_data']}"])
            continue
        mark = "**yes**" if f["significant"] else ("nominal" if f["ci_excludes_zero"] else "no")
        rows.append([f["feature"], fmt_num(f["before"]), fmt_num(f["after"]), fmt_signed(f["delta"]),
                     fmt_ci(f["lo"], f["hi"]), fmt_num(f["effect_size"], 2), fmt_p(f["p"]), fmt_p(f["p_holm"]), mark])
    return md_table(["feature", "before", "after", "Δ", "95% CI", "d", "p", "Holm p", "significant"], rows)


def _shift_table(rows: list[dict] | None, what: str) -> str:
    if not rows:
        return f"_No {what} recorded on either side._"
    return md_table([what, "before", "after", "Δ share", "95% CI"],
                    [[md_text(r["key"]), f"{r['before']} ({fmt_pct(r['before_share'])})", f"{r['after']} ({fmt_pct(r['after_share'])})",
                      fmt_pct(r["shift"], signed=True), fmt_ci(r["lo"], r["hi"], pct=True, signed=True)] for r in rows])


def _macro_table(r: dict) -> str:
    b, a = r["before"], r["after"]

    def reward(side, key):
        tc = side[key]["task_clustered"]
        return f"{fmt_num(tc['estimate'])} {fmt_ci(tc['lo'], tc['hi'])}" if "estimate" in tc else fmt_num(side[key]["mean_rows"])

    rows = [["rows / tasks", f"{b['n_rows']} / {b['n_tasks']}", f"{a['n_rows']} / {a['n_tasks']}"],
            ["solve rate (Wilson 95%)", f"{fmt_pct(b['solve_rate']['rate'])} {fmt_ci(b['solve_rate']['lo'], b['solve_rate']['hi'], pct=True)}",
             f"{fmt_pct(a['solve_rate']['rate'])} {fmt_ci(a['solve_rate']['lo'], a['solve_rate']['hi'], pct=True)}"],
            ["mean reward, errors as 0 (task-clustered)", reward(b, "reward_errors_as_zero"), reward(a, "reward_errors_as_zero")],
            ["mean reward, infra errors dropped", reward(b, "reward_infra_dropped"), reward(a, "reward_infra_dropped")],
            ["infra-error rows", b["n_infra_errors"], a["n_infra_errors"]],
            ["mean agent turns", fmt_num(b["mean_turns"], 1), fmt_num(a["mean_turns"], 1)],
            ["mean tokens", fmt_num(b["mean_tokens"], 0), fmt_num(a["mean_tokens"], 0)],
            ["failure-mode coverage", fmt_pct(b["failure_mode_coverage"]), fmt_pct(a["failure_mode_coverage"])]]
    return md_table(["metric", b["label"], a["label"]], rows)


def _group_table(groups: dict) -> str:
    rows = []
    for value, g in groups.items():
        if g.get("invalid_for_comparison"):
            rows.append([md_text(value), g["before"]["n_rows"], g["after"]["n_rows"], 0, "—", "—", "not comparable"])
            continue
        pr, fl = g["paired"]["passed"], g["task_flips"]
        delta = f"{fmt_pct(pr['estimate'], signed=True)} {fmt_ci(pr['lo'], pr['hi'], pct=True, signed=True)}" if "estimate" in pr else "not enough data"
        sig = ", ".join(f["feature"] for f in g["features"] if f["significant"]) or "none"
        rows.append([md_text(value), g["before"]["n_rows"], g["after"]["n_rows"], g["common_tasks"], delta,
                     f"+{fl['newly_passing']}/−{fl['newly_failing']} (p={fmt_p(fl['mcnemar_p'])})", sig])
    return md_table(["value", "rows before", "rows after", "common tasks", "Δ solve rate", "flips (McNemar)",
                     "significant features"], rows)


def render_markdown(r: dict, sources: dict | None = None) -> str:
    """report.md: the summary in words first, then the tables behind it."""
    out = [f"# Q1 — Behavioural delta: {r['labels'][0]} → {r['labels'][1]}", ""]
    for side, ref in (sources or {}).items():
        out.append(f"- {side}: {md_code(ref.get('source'))} (revision {md_code(str(ref.get('revision'))[:12])}, {ref.get('rows')} rows)")
    out += ["", "## Summary", "", bullet_list(r["summary"]), "", "## Macro metrics", "", _macro_table(r), ""]
    if r.get("invalid_for_comparison"):
        out += [f"**Invalid for comparison:** {r['invalid_for_comparison']}", ""]
        return "\n".join(out)
    fl = r["task_flips"]
    out += ["## Behavioural features", "",
            f"Paired over common tasks (each task = mean of its attempts), {r['n_boot']} task-clustered bootstrap "
            "resamples; p from a paired sign-flip test; **significant** = 95% CI excludes 0 and Holm-adjusted p < "
            f"{r['alpha']} across the {len(r['features'])} features (\"nominal\" = CI excludes 0 only). d = Δ / pooled SD "
            "of per-trace values.", "", _feature_table(r["features"]), "",
            "## Task-level pass/fail flips", "",
            f"{fl['rule']}; {fl['n_common']} common tasks: {fl['both_pass']} pass on both, {fl['both_fail']} fail on both, "
            f"{fl['newly_passing']} newly passing, {fl['newly_failing']} newly failing; exact McNemar p = {fmt_p(fl['mcnemar_p'])}.",
            "", "Newly passing: " + (", ".join(md_code(t) for t in fl["newly_passing_tasks"]) or "none"),
            "", "Newly failing: " + (", ".join(md_code(t) for t in fl["newly_failing_tasks"]) or "none"), "",
            "## Tool-call distribution shift (share of all tool calls)", "", _shift_table(r["shifts"]["tool_calls"], "tool"), "",
            "## Error-type shift (share of rows)", "", _shift_table(r["shifts"]["error_types"], "error type"), "",
            "## Failure-mode shift (share of rows)", "",
            f"Labels by: {r.get('failure_mode_annotator') or 'none'}.", "",
            _shift_table(r["shifts"]["failure_modes"], "failure mode") if r["shifts"]["failure_modes"]
            else "_No failure_mode labels on either side (run the failure-mode annotation to populate them)._", ""]
    for col, groups in r["groups"].items():
        out += [f"## By {col}", "", _group_table(groups), ""]
    return "\n".join(out)


def failure_mode_labels(failure_modes: dict) -> dict[str, str]:
    """trace_id -> failure-mode category from the `failure_modes` asset's table (failed rows left out)."""
    from rl_assets import store

    path = failure_modes.get("path")
    if not path or not store.exists(path):
        return {}
    table = store.read_table(path, columns=["trace_id", "failure_mode", "status"]).to_pylist()
    return {r["trace_id"]: r["failure_mode"] for r in table if r["failure_mode"] and r["status"] != "failed"}


def with_failure_modes(table, labels: dict[str, str]):
    """The trace table with its failure_mode column filled from the annotation, where it has one."""
    import pyarrow as pa

    if not labels:
        return table
    current = table.column("failure_mode").to_pylist()
    merged = [labels.get(tid, cur) for tid, cur in zip(table.column("trace_id").to_pylist(), current)]
    return table.set_column(table.schema.get_field_index("failure_mode"), "failure_mode", pa.array(merged, pa.string()))


def _enough_data(r: dict) -> tuple[bool, str]:
    if r.get("invalid_for_comparison"):
        return False, r["invalid_for_comparison"]
    if r["common_tasks"] < stats.MIN_COMMON_TASKS:
        return False, f"{r['common_tasks']} common tasks (need >= {stats.MIN_COMMON_TASKS} for intervals)"
    missing = [f["feature"] for f in r["features"] if "delta" not in f]
    return True, f"{r['common_tasks']} common tasks" + (f"; no data for {', '.join(missing)}" if missing else "")


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    group_name="q1",
    kinds={"python", "markdown"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn(), "failure_modes": dg.AssetIn()},
    check_specs=[dg.AssetCheckSpec("has_common_tasks", asset=ASSET, partitions_def=models_partitions,
                                   description="Baseline and post-RL share at least one task (else no paired comparison)."),
                 dg.AssetCheckSpec("enough_data", asset=ASSET, partitions_def=models_partitions,
                                   description=f"At least {stats.MIN_COMMON_TASKS} common tasks for intervals and tests.")],
)
def behavioral_delta(
    context: AssetExecutionContext, settings: AnalysisSettings, baseline_traces: dict, post_rl_traces: dict, failure_modes: dict
):
    """Behaviour deltas baseline → post-RL with task-clustered CIs, Holm-adjusted tests and McNemar flips."""
    from rl_assets.ingest import read_traces

    labels = failure_mode_labels(failure_modes)
    before = with_failure_modes(read_traces(baseline_traces["path"], columns=(*NEEDED, "trace_id")), labels)
    after = with_failure_modes(read_traces(post_rl_traces["path"], columns=(*NEEDED, "trace_id")), labels)
    result = jsonable(compute_behavioral_delta(before, after, n_boot=settings.n_boot, seed=settings.seed))
    # Whoever labelled the failure modes is named next to them (the offline heuristic says so).
    result["failure_mode_annotator"] = failure_modes.get("annotator")
    result["sources"] = {"baseline": {k: baseline_traces.get(k) for k in ("source", "revision", "rows", "benchmark")},
                         "post-RL": {k: post_rl_traces.get(k) for k in ("source", "revision", "rows", "benchmark")}}
    out_dir = report_dir(context.partition_key) / "Q1_behavioral_delta"
    md = render_markdown(result, result["sources"])
    atomic_write_text(out_dir / "report.md", md)
    atomic_write_text(out_dir / "report.json", json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n")
    metadata = {
        "summary": dg.MetadataValue.md(bullet_list(result["summary"])),
        "report": dg.MetadataValue.path(Path(out_dir / "report.md").as_posix()),
        "n_before": result["before"]["n_rows"], "n_after": result["after"]["n_rows"],
        "common_tasks": result["common_tasks"],
        "n_significant_features": sum(f["significant"] for f in result.get("features", [])),
    }
    if "task_flips" in result:
        metadata["mcnemar_p"] = dg.MetadataValue.float(float(result["task_flips"]["mcnemar_p"]))
    yield dg.Output(result, metadata=metadata)
    invalid = result.get("invalid_for_comparison")
    yield dg.AssetCheckResult(check_name="has_common_tasks", passed=not invalid,
                              metadata={"common_tasks": result["common_tasks"], "reason": invalid or "ok"})
    ok, why = _enough_data(result)
    yield dg.AssetCheckResult(check_name="enough_data", passed=ok, severity=dg.AssetCheckSeverity.WARN, metadata={"detail": why})
