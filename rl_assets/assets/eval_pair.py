"""`eval_pair`: which baseline and post-RL eval-trace datasets this model is judged on."""

import hashlib
import json

import dagster as dg

from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.pairing.eval_resolution import ResolutionError
from rl_assets.analysis.render.escape import md_text
from rl_assets.partitions import models_partitions
from rl_assets.support.resolve import explicit_pair, format_table, resolve_eval_pair
from rl_assets.values.masking import mask

CHECKS = {
    "matched_eval_pair": "A baseline and a post-RL eval on the same benchmark were found",
    "distinct_timestamps": "Baseline and post-RL overlay timestamps differ",
}


@dg.asset(
    partitions_def=models_partitions,
    kinds={"supabase", "python"},
    check_specs=[
        dg.AssetCheckSpec(name, asset="eval_pair", partitions_def=models_partitions, description=d)
        for name, d in CHECKS.items()
    ],
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
)
def eval_pair(context: dg.AssetExecutionContext, registry: RegistryResource, settings: AnalysisSettings):
    """The resolved eval pair (selection mode, benchmark, both datasets, timestamps) and the full pair table."""
    try:
        resolved = resolve_eval_pair(
            registry.client(),
            context.partition_key,
            mode=settings.eval_selection,
            benchmark=settings.eval_benchmark,
            score_key=settings.eval_score_key,
            include_unfinished=settings.include_unfinished_jobs,
        )
    except ResolutionError as exc:
        if not (settings.baseline_eval and settings.post_rl_eval):
            raise dg.Failure(description=f"eval_pair {context.partition_key}: {exc}", allow_retries=False) from exc
        resolved = explicit_pair(context.partition_key, str(exc))
    for key in ("baseline_eval", "post_rl_eval", "baseline_eval_ts", "post_rl_eval_ts"):
        override = getattr(settings, key)
        if override:
            resolved["notes"].append(mask(f"{key} <- settings override {override!r} (was {resolved[key]!r})"))
            resolved[key] = override
    for note in resolved["notes"]:
        context.log.info(note)
    # The data version changes only when the chosen jobs change, so a registry refresh that
    # picks the same pair does not make every downstream asset stale.
    chosen = [resolved[k] for k in ("post_job_id", "baseline_job_id", "post_rl_eval", "baseline_eval", "selection")]
    version = hashlib.sha1(json.dumps(chosen).encode()).hexdigest()[:16]
    yield dg.MaterializeResult(  # not Output(data_version=…): a beta parameter that warns on every run
        value=resolved,
        data_version=dg.DataVersion(version),
        metadata={
            "benchmark": str(resolved["benchmark"]),
            "selection": resolved["reason"],
            "post_rl_eval": mask(resolved["post_rl_eval"]),  # a settings override can be any text
            "baseline_eval": mask(resolved["baseline_eval"]),
            "delta": resolved["delta"] if resolved["delta"] is not None else "n/a",
            "pairs": dg.MetadataValue.md(format_table(resolved)),
            "notes": dg.MetadataValue.md("\n".join(f"- {md_text(n)}" for n in resolved["notes"])),
        },
    )
    matched = bool(resolved["post_rl_eval"] and resolved["baseline_eval"])
    yield dg.AssetCheckResult(
        check_name="matched_eval_pair",
        passed=matched,
        metadata={"detail": resolved["reason"] if matched else f"no matched pair: {resolved['reason']}"},
    )
    distinct = resolved["post_rl_eval_ts"] != resolved["baseline_eval_ts"]
    yield dg.AssetCheckResult(
        check_name="distinct_timestamps",
        passed=distinct,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"baseline": str(resolved["baseline_eval_ts"]), "post_rl": str(resolved["post_rl_eval_ts"])},
    )
