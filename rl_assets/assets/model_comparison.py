"""`model_comparison`: every model partition on one pinned benchmark, against its noise floor."""

import os

import dagster as dg

from resources.hub import HubError, HubResource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.compare.comparison import compare, model_row, task_pass_rates
from rl_assets.analysis.eval_resolution import ResolutionError
from rl_assets.analysis.figures import figure_png, markdown_image
from rl_assets.ingest import IngestError
from rl_assets.analysis.report_md import fmt_ci, fmt_num, fmt_p, fmt_signed, jsonable, md_table
from rl_assets.fileutil import atomic_write_bytes, atomic_write_json, atomic_write_text
from rl_assets.trace_tables import ingest_addressed
from rl_assets.resolve import resolve_eval_pair
from rl_assets.store import reports_root
from rl_assets.analysis.escape import md_code, md_text

COLUMNS = ["task_id", "passed", "is_infra_error"]


class ComparisonConfig(dg.Config):
    benchmark: str = ""  # id or name; "" -> $RLDELTA_COMPARE_BENCHMARK, then settings.eval_benchmark


def pinned_side_rows(client, spec: str, model_id: str, side: str, benchmark: str, settings: AnalysisSettings) -> list[dict]:
    """Light rows of one pinned eval dataset. Tables are addressed by source and knobs, so the
    partition's own trace table is read when it holds the same source revision and knobs (no second
    ingest); otherwise it is ingested once beside it and reused by later runs."""
    from rl_assets.ingest import read_traces

    asset = {"baseline": "baseline_traces", "post-rl": "post_rl_traces"}[side]
    built = ingest_addressed(
        client, spec, asset, model_id, max_rows=settings.max_rows, tokenizer=settings.tokenizer, benchmark=benchmark, side=side,
    )
    return read_traces(built["path"], columns=COLUMNS).to_pylist()


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
                [r["model_id"], r["n_common_tasks"], fmt_num(r["baseline_rate"]), fmt_num(r["post_rate"]), fmt_signed(r["delta"]),
                 fmt_ci(*r["ci95"], signed=True), fmt_num(r["noise_floor"]), fmt_p(r["mcnemar"]["p"]),
                 "yes" if r["significant"] and r["above_noise_floor"] else "no"]
                for r in result["ranked"]
            ],
        ),
    ]
    if result["not_enough_data"]:
        lines += ["", "## Not enough data", *[f"- {md_code(r['model_id'])}: {md_text(r['status'])}" for r in result["not_enough_data"]]]
    lines += ["", "## Excluded (no eval pair on this benchmark)", *([f"- {md_code(e['model_id'])}: {md_text(e['reason'])}" for e in result["excluded"]] or ["- none"])]
    return "\n".join(lines) + "\n"


def summary(result: dict) -> str:
    """The comparison narrow enough for the UI's metadata panel: three columns, the full table is in comparison.md."""
    rows = [[r["model_id"], f"{fmt_signed(r['delta'])} {fmt_ci(*r['ci95'], signed=True)}",
             "yes" if r["significant"] and r["above_noise_floor"] else "no"] for r in result["ranked"]]
    lines = [f"On {result['benchmark']['name']}: ranking {result['ranking_rule']}.", "",
             md_table(["model", "Δ pass rate [95% CI]", "real change"], rows) if rows else "No model has a matched pair."]
    lines += [f"- not enough data: {r['model_id']} ({r['status']})" for r in result["not_enough_data"]]
    lines += [f"- excluded: {e['model_id']}" for e in result["excluded"]]
    return "\n".join(lines) + "\n\nNoise floors, McNemar p and the exclusion reasons: the `report` file.\n"


def plot(result: dict) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["ranked"]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.5 * max(1, len(rows))))
    ys = range(len(rows))
    ax.errorbar([r["delta"] for r in rows], list(ys), xerr=[[r["delta"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["delta"] for r in rows]], fmt="o")
    for y, r in zip(ys, rows):  # each model's own noise floor (its baseline rate and task count)
        if r["noise_floor"] == r["noise_floor"]:
            ax.plot([-r["noise_floor"], r["noise_floor"]], [y, y], color="grey", lw=6, alpha=0.3,
                    label="noise floor" if y == 0 else None)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(list(ys), [r["model_id"] for r in rows])
    ax.set_xlabel(f"post-RL − baseline pass rate on {result['benchmark']['name']}")
    if ax.get_legend_handles_labels()[1]:
        ax.legend(loc="lower right")
    fig.tight_layout()
    return figure_png(fig, tight=False)


@dg.asset(group_name="compare", kinds={"python", "parquet"}, pool="hub")
def model_comparison(context: dg.AssetExecutionContext, config: ComparisonConfig, hub: HubResource, registry: RegistryResource, settings: AnalysisSettings):
    """Every registered model's post-RL vs baseline change on ONE pinned benchmark, with noise floor and exclusions."""
    pinned = config.benchmark or os.environ.get("RLDELTA_COMPARE_BENCHMARK", "") or settings.eval_benchmark
    if not pinned:
        raise dg.Failure("model_comparison needs a pinned benchmark (run config `benchmark`, RLDELTA_COMPARE_BENCHMARK or settings.eval_benchmark); a per-model best benchmark would compare different yardsticks")
    reg, client = registry.client(), hub.client()
    bench = reg.benchmark_by_id(pinned) or reg.benchmark_by_name(pinned)
    if bench is None:
        raise dg.Failure(f"model_comparison: benchmark {pinned!r} is neither an id nor a name in the benchmarks table")
    rows, excluded = [], []
    for model_id in sorted(context.instance.get_dynamic_partitions("models")):
        try:
            pair = resolve_eval_pair(reg, model_id, mode="benchmark", benchmark=bench["id"], include_unfinished=settings.include_unfinished_jobs)
            if not (pair["baseline_eval"] and pair["post_rl_eval"]):
                raise ResolutionError(f"no matched pair on {bench['name']} ({pair['reason']})")
            base = task_pass_rates(pinned_side_rows(client, pair["baseline_eval"], model_id, "baseline", pair["benchmark"], settings))
            post = task_pass_rates(pinned_side_rows(client, pair["post_rl_eval"], model_id, "post-rl", pair["benchmark"], settings))
        except (ResolutionError, HubError, IngestError, OSError, ValueError) as exc:
            # One model's bad data excludes that model, with the reason; it never sinks the comparison.
            excluded.append({"model_id": model_id, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        row = model_row(model_id, base, post, n_boot=settings.n_boot, seed=settings.seed)
        rows.append({**row, "benchmark_id": pair["benchmark_id"]})
    result = compare({"id": bench["id"], "name": bench["name"]}, rows, excluded)
    out = reports_root() / "model_comparison"
    markdown = render(result)
    atomic_write_text(out / "comparison.md", markdown)
    atomic_write_json(out / "comparison.json", jsonable(result))
    png = plot(result)
    atomic_write_bytes(out / "comparison.png", png)
    return dg.MaterializeResult(
        metadata={
            "benchmark": bench["name"],
            "benchmark_id": str(bench["id"]),  # what the comparison sensor keeps it pinned to
            "models_ranked": len(result["ranked"]),
            "models_excluded": len(excluded),
            "real_changes": sum(bool(r["significant"] and r["above_noise_floor"]) for r in result["ranked"]),
            "models": dg.MetadataValue.json(sorted(r["model_id"] for r in result["ranked"])),
            "comparison": dg.MetadataValue.md(summary(result)),
            "plot": dg.MetadataValue.md(markdown_image("Δ pass rate per model", png)),
            "report": dg.MetadataValue.path(str(out / "comparison.md")),
        }
    )
