"""`model_comparison`: every model partition on one pinned benchmark, against its noise floor."""

import os
from typing import Any

import dagster as dg

from resources.hub import HubBackend, HubError, HubResource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.compare.comparison import model_row, paired_pass_rates
from rl_assets.analysis.compare.result import ModelComparison, analyse_comparison
from rl_assets.analysis.pairing.eval_resolution import ResolutionError
from rl_assets.ingest import IngestError
from rl_assets.partitions import MODELS
from rl_assets.support.emit import dagster_metadata
from rl_assets.support.ingest_step import build_table
from rl_assets.support.report_files import write_comparison
from rl_assets.support.report_links import file_metadata
from rl_assets.support.resolve import resolve_eval_pair

COLUMNS = [
    "task_id",
    "passed",
    "is_infra_error",
    "task_key",
    "task_key_source",
    "task_family",
    "benchmark",
    "gen_settings",
]


class ComparisonConfig(dg.Config):
    benchmark: str = ""  # id or name; "" -> $RLDELTA_COMPARE_BENCHMARK, then settings.eval_benchmark


def pinned_side_rows(
    client: HubBackend, spec: str, model_id: str, side: str, benchmark: str, settings: AnalysisSettings
) -> list[dict[str, Any]]:
    """Light rows of one pinned eval dataset. Tables are addressed by source and knobs, so the
    partition's own trace table is read when it holds the same source revision and knobs (no second
    ingest); otherwise it is ingested once beside it and reused by later runs."""
    from rl_assets.ingest import read_traces

    asset = {"baseline": "baseline_traces", "post-rl": "post_rl_traces"}[side]
    built = build_table(client, settings, spec, asset, model_id, side, benchmark)
    return read_traces(built["path"], columns=COLUMNS).to_pylist()


@dg.asset(name=ModelComparison.asset, group_name="compare", kinds={"python", "parquet"}, pool="hub")
def model_comparison(
    context: dg.AssetExecutionContext,
    config: ComparisonConfig,
    hub: HubResource,
    registry: RegistryResource,
    settings: AnalysisSettings,
):
    """Every registered model's post-RL vs baseline change on ONE pinned benchmark, with noise floor and exclusions."""
    pinned = config.benchmark or os.environ.get("RLDELTA_COMPARE_BENCHMARK", "") or settings.eval_benchmark
    if not pinned:
        raise dg.Failure(
            "model_comparison needs a pinned benchmark (run config `benchmark`, RLDELTA_COMPARE_BENCHMARK or "
            "settings.eval_benchmark); a per-model best benchmark would compare different yardsticks"
        )
    reg, client = registry.client(), hub.client()
    bench = reg.benchmark_by_id(pinned) or reg.benchmark_by_name(pinned)
    if bench is None:
        raise dg.Failure(f"model_comparison: benchmark {pinned!r} is neither an id nor a name in the benchmarks table")
    rows, excluded, pairings = [], [], []
    for model_id in sorted(context.instance.get_dynamic_partitions(MODELS)):
        try:
            pair = resolve_eval_pair(
                reg,
                model_id,
                mode="benchmark",
                benchmark=bench["id"],
                include_unfinished=settings.include_unfinished_jobs,
            )
            if not (pair["baseline_eval"] and pair["post_rl_eval"]):
                raise ResolutionError(f"no matched pair on {bench['name']} ({pair['reason']})")
            base, post, pairing = paired_pass_rates(
                model_id,
                pinned_side_rows(client, pair["baseline_eval"], model_id, "baseline", pair["benchmark"], settings),
                pinned_side_rows(client, pair["post_rl_eval"], model_id, "post-rl", pair["benchmark"], settings),
                settings.task_id_normalisation,
            )
        except (ResolutionError, HubError, IngestError, OSError, ValueError) as exc:
            # One model's bad data excludes that model, with the reason; it never sinks the comparison.
            excluded.append({"model_id": model_id, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        pairings.append(pairing)
        row = model_row(model_id, base, post, n_boot=settings.n_boot, seed=settings.seed)
        rows.append({**row, "benchmark_id": pair["benchmark_id"]})
    result = analyse_comparison({"id": bench["id"], "name": bench["name"]}, rows, excluded, pairings)
    # Not stored as a value (the report folder is the record): emit's Output does not apply here.
    report = result.report()
    written = write_comparison(report.files)
    return dg.MaterializeResult(
        metadata={
            result.summary_key: dg.MetadataValue.md(report.summary),
            **dagster_metadata(result.metadata()),
            **file_metadata("report", written["comparison.md"]),
        }
    )
