"""Dagster's own cost of a run, for bench_q1_path.py `--floor`, on the same kind of instance
(rldelta's dagster.yaml, a fresh DAGSTER_HOME) through the same `dagster asset materialize`:

- `noop`: one asset that does nothing;
- `q1_shape`: assets that do nothing in the shape of the Q1 path (the same five asset keys, one
  two-table step, the same dependencies, eleven passing checks, one dynamic `models` partition, the
  in-process executor), so the steps' events cost what they cost in rldelta's run.

Whatever a Q1 run costs beyond `q1_shape` is rldelta's own work (imports, reading, computing)."""

import dagster as dg

models = dg.DynamicPartitionsDefinition(name="models")


@dg.asset
def noop() -> None:
    return None


def _checks(asset: str, *names: str) -> list[dg.AssetCheckSpec]:
    return [dg.AssetCheckSpec(name, asset=asset) for name in names]


def _passed(asset: str, *names: str):
    return [dg.AssetCheckResult(asset_key=asset, check_name=name, passed=True) for name in names]


EVAL_PAIR = ("matched_eval_pair", "distinct_timestamps")
TRACES = ("every_input_accounted_for", "matches_toolkit_metrics")
FAILURE_MODES = ("llm_calls_succeeded",)
BEHAVIORAL_DELTA = ("same_generation_settings", "has_common_tasks", "enough_data", "task_ids_pair")


@dg.asset(partitions_def=models, group_name="q1_shape", check_specs=_checks("eval_pair", *EVAL_PAIR))
def eval_pair():
    yield dg.Output({"baseline": "b", "post_rl": "a"})
    yield from _passed("eval_pair", *EVAL_PAIR)


@dg.multi_asset(
    partitions_def=models,
    group_name="q1_shape",
    outs={side: dg.AssetOut() for side in ("baseline_traces", "post_rl_traces")},
    check_specs=[*_checks("baseline_traces", *TRACES), *_checks("post_rl_traces", *TRACES)],
)
def eval_traces(eval_pair):
    for side in ("baseline_traces", "post_rl_traces"):
        yield dg.Output({"path": f"{side}.parquet", "rows": 12}, output_name=side)
        yield from _passed(side, *TRACES)


@dg.asset(partitions_def=models, group_name="q1_shape", check_specs=_checks("failure_modes", *FAILURE_MODES))
def failure_modes(baseline_traces, post_rl_traces):
    yield dg.Output({"rows": baseline_traces["rows"] + post_rl_traces["rows"]})
    yield from _passed("failure_modes", *FAILURE_MODES)


@dg.asset(partitions_def=models, group_name="q1_shape", check_specs=_checks("behavioral_delta", *BEHAVIORAL_DELTA))
def behavioral_delta(baseline_traces, post_rl_traces, failure_modes):
    yield dg.Output({"rows": failure_modes["rows"]})
    yield from _passed("behavioral_delta", *BEHAVIORAL_DELTA)


defs = dg.Definitions(
    assets=[noop, eval_pair, eval_traces, failure_modes, behavioral_delta], executor=dg.in_process_executor
)
