"""`solve_rate_by_context` (Q4): outcomes per disjoint context-length bin, baseline vs post-RL.

Writes `<reports>/<slug>/Q4_solve_rate_by_context/solve_rate.{png,json,md}` and says whether RL
moved traces into bins with different solve rates (mix shift) or changed rates inside bins.
"""


import json
import math

import dagster as dg
from dagster import AssetExecutionContext

from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.figures import ui_image_uri
from rl_assets.analysis.q4.context_bins import COLUMNS, render_png, solve_rate_by_context
from rl_assets.analysis.report_md import fmt_ci, fmt_pct, jsonable, md_table
from rl_assets.fileutil import atomic_write_bytes, atomic_write_text
from rl_assets.partitions import models_partitions
from rl_assets.store import report_dir

ASSET = "solve_rate_by_context"


def render_markdown(r: dict) -> str:
    """Interpretation first, then one row per bin: n and solve rate per side, Newcombe CI of Δ."""
    b, a = r["before"], r["after"]
    dec = {row["bin"]: row for row in r["decomposition"]["per_bin"]}
    rows = []
    for rb, ra in zip(b["bins"], a["bins"]):
        if not (rb["n"] or ra["n"]):
            continue
        d = dec.get(rb["bin"], {})
        rows.append([rb["bin"], rb["n"], ra["n"],
                     f"{fmt_pct(rb['solved']['rate'])} {fmt_ci(rb['solved']['lo'], rb['solved']['hi'], pct=True)}",
                     f"{fmt_pct(ra['solved']['rate'])} {fmt_ci(ra['solved']['lo'], ra['solved']['hi'], pct=True)}",
                     fmt_pct(rb["timeout"]["rate"]) + " → " + fmt_pct(ra["timeout"]["rate"]),
                     fmt_pct(rb["context_exceeded"]["rate"]) + " → " + fmt_pct(ra["context_exceeded"]["rate"]),
                     fmt_pct(d.get("mix"), 2, signed=True), fmt_pct(d.get("within"), 2, signed=True)])
    table = md_table(["bin", f"n {r['labels'][0]}", f"n {r['labels'][1]}", f"solve {r['labels'][0]}",
                      f"solve {r['labels'][1]}", "timeout", "ctx exceeded", "mix part", "within part"], rows)
    return "\n".join([
        "# Q4 — Solve rate by context length", "", r["interpretation"], "",
        f"Length: {r['labels'][0]} uses {b['length_source']}, {r['labels'][1]} uses {a['length_source']} "
        "(peak_prompt_tokens when recorded, else n_tokens). Bins are disjoint [lo, hi).", "", table, "",
        "![solve rate by context](solve_rate.png)", ""])


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    group_name="q4",
    kinds={"python", "matplotlib"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    check_specs=[dg.AssetCheckSpec("enough_data", asset=ASSET, partitions_def=models_partitions,
                                   description="Both sides have rows with a known context length.")],
)
def solve_rate_by_context_asset(context: AssetExecutionContext, settings: AnalysisSettings,
                                baseline_traces: dict, post_rl_traces: dict):
    """Outcome rates per disjoint context bin with Wilson CIs; Δ solve rate split into mix shift and within-bin."""
    from rl_assets.ingest import read_traces

    before = read_traces(baseline_traces["path"], columns=COLUMNS)
    after = read_traces(post_rl_traces["path"], columns=COLUMNS)
    result = jsonable(solve_rate_by_context(before, after, edges=list(settings.context_bins) + [math.inf]))
    out_dir = report_dir(context.partition_key) / "Q4_solve_rate_by_context"
    png_bytes = render_png(result)
    png = atomic_write_bytes(out_dir / "solve_rate.png", png_bytes)
    atomic_write_text(out_dir / "solve_rate.json", json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n")
    md = render_markdown(result)
    atomic_write_text(out_dir / "solve_rate.md", md)
    yield dg.Output(result, metadata={
        # the report's relative image becomes the pixels themselves (a path would not load in the UI)
        "interpretation": dg.MetadataValue.md(md.replace("](solve_rate.png)", f"]({ui_image_uri(png_bytes)})")),
        "plot_file": dg.MetadataValue.path(png.as_posix()),
        "n_before": result["before"]["n"], "n_after": result["after"]["n"],
        "mix_shift_pp": dg.MetadataValue.float(100 * result["decomposition"]["mix_shift"]),
        "within_bin_pp": dg.MetadataValue.float(100 * result["decomposition"]["within_bin"]),
    })
    known = [result[side]["n"] - result[side]["unknown"] for side in ("before", "after")]
    yield dg.AssetCheckResult(check_name="enough_data", passed=all(k > 0 for k in known),
                              severity=dg.AssetCheckSeverity.WARN,
                              metadata={"rows_with_length_before": known[0], "rows_with_length_after": known[1]})
