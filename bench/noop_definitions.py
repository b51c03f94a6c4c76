"""Dagster's own cost of a run, for bench_q1_path.py `--floor`: one asset that does nothing, on the
same kind of instance (rldelta's dagster.yaml, a fresh DAGSTER_HOME) through the same
`dagster asset materialize`. Whatever a Q1 run costs beyond this is rldelta's."""

import dagster as dg


@dg.asset
def noop() -> None:
    return None


defs = dg.Definitions(assets=[noop], executor=dg.in_process_executor)
