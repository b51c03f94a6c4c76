"""`judge_verdicts`: pairwise LLM judge of baseline vs post-RL traces on the same tasks (Q1).

Writes `<reports>/<slug>/Q1_llm_judge/report.{md,json}` (through rl_assets/support/report_files.py). Every judgment is
cached by (model, prompt version, exact prompt), so re-runs and resumed runs cost nothing for pairs
already judged; failed judgments are retried on the next run, never cached.
"""

import dagster as dg

from resources.llm import LLMResource
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.judge.result import PARSE_CHECK, JudgeRun, JudgeVerdicts, judge_result
from rl_assets.analysis.judge.run import judge_pairs
from rl_assets.analysis.judge.selection import ROW_COLUMNS, representatives, select_probes
from rl_assets.partitions import models_partitions
from rl_assets.support.checks import calls_check_spec
from rl_assets.support.emit import emit
from rl_assets.support.llm_run import LLMRunConfig
from rl_assets.support.trace_stream import load_rows
from rl_assets.values.handover import TraceTableRef

ASSET = JudgeVerdicts.asset


class JudgeConfig(LLMRunConfig):
    # model, concurrency, budgets and force come from LLMRunConfig
    pairs_per_probe: int = 30  # seed default (--llm-judge-max-pairs 30), for EACH probe
    random_pairs: int | None = None  # None -> pairs_per_probe; 0 disables the control probe
    seed: int | None = None  # None -> settings.seed
    attempt_rule: str = "first"  # first | median-reward
    char_budget: int = 12000  # per transcript, middle-truncated
    max_parse_failure_rate: float = 0.1


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"openai", "json"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    pool="llm",
    check_specs=[
        dg.AssetCheckSpec(
            PARSE_CHECK,
            asset=ASSET,
            partitions_def=models_partitions,
            description="Share of judge replies that could not be parsed/validated",
        ),
        calls_check_spec(ASSET),
    ],
)
def judge_verdicts(
    context: dg.AssetExecutionContext,
    config: JudgeConfig,
    llm: LLMResource,
    settings: AnalysisSettings,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
):
    """Pairwise judge verdicts (both orders, anonymised) with win rates, Wilson CIs and flip rate."""
    partition = context.partition_key
    seed = settings.seed if config.seed is None else config.seed
    base = representatives(load_rows(baseline_traces.path, ROW_COLUMNS), config.attempt_rule)
    post = representatives(load_rows(post_rl_traces.path, ROW_COLUMNS), config.attempt_rule)
    n_random = config.pairs_per_probe if config.random_pairs is None else config.random_pairs
    probes = select_probes(base, post, config.pairs_per_probe, n_random, seed)
    chosen = [t for tasks in probes.values() for t in tasks]
    for _side, ref, reps in (("baseline", baseline_traces, base), ("post-rl", post_rl_traces, post)):
        ids = {reps[t]["trace_id"] for t in chosen}
        full = {r["trace_id"]: r for r in load_rows(ref.path, ("trace_id",), ids)}
        for t in chosen:
            reps[t]["conversation"] = full[reps[t]["trace_id"]].get("conversation")

    client = config.session(llm, "judge", partition, context.log.info)
    pairs = judge_pairs(probes, base, post, client, config.char_budget)
    for p in pairs:
        p["judge"] = client.model
    result = judge_result(
        pairs,
        model_id=partition,
        judge=client.model,
        attempt_rule=config.attempt_rule,
        seed=seed,
        common_tasks=len(set(base) & set(post)),
        calls=client.summary(),
        backend=llm.describe("judge", config.model),
        run=JudgeRun(
            calls=client.counters["calls"],
            spend_usd=client.budget.snapshot()["used_usd"],
            max_parse_failure_rate=config.max_parse_failure_rate,
        ),
    )
    yield from emit(partition, result)
