"""`failure_modes`: one categorical failure mode + short text per trace, both sides (Q1/Q0).

Stored as parquet in the store, one file per run (rl_assets/support/failure_modes_store.py); the value
passed downstream is a FailureModeTableRef (rl_assets/values/handover.py): the table's location, who
labelled it, per-side category distributions and their shift, for behavioral_delta. Pushing to the
eval repos is a separate explicit job (jobs/write_back.py); with ``write_back: true`` its permission
preflight runs here BEFORE any LLM call.
"""

import dagster as dg

from resources.hub import HubResource
from resources.llm import LLMResource
from rl_assets import store
from rl_assets.analysis.judge.llm_failures import failure_summary
from rl_assets.analysis.judge.selection import ROW_COLUMNS
from rl_assets.analysis.q1.failure_modes import PROMPT_VERSION, annotate, distribution
from rl_assets.analysis.q1.report import failure_mode_table
from rl_assets.partitions import models_partitions
from rl_assets.support.checks import calls_check, calls_check_spec
from rl_assets.support.failure_modes_store import latest_table, table_path, write_table
from rl_assets.support.hub_write import repo_from_spec, require_writable
from rl_assets.support.llm_run import LLMRunConfig
from rl_assets.support.metadata_numbers import rounded_metadata
from rl_assets.support.trace_stream import iter_trace_rows, load_rows
from rl_assets.values.handover import FailureModeTableRef, TraceTableRef

SIDES = (("baseline", "baseline_traces"), ("post_rl", "post_rl_traces"))
# Written explicitly so a run with zero rows still stores every column (the next run reads them).
COLUMNS = (
    "side",
    "trace_id",
    "task_id",
    "source_repo",
    "failure_mode",
    "failure_summary",
    "status",
    "error",
    "annotator",
    "prompt_version",
    "key",
)


def _schema():
    import pyarrow as pa  # imported where used: the definitions import stays light (test_import_cost.py)

    return pa.schema([(name, pa.string()) for name in COLUMNS])


class FailureModesConfig(LLMRunConfig):
    # model, concurrency, budgets and force come from LLMRunConfig
    batch_size: int = 6  # the original annotator's batches of six; one call per batch, items isolated inside it
    char_limit: int = 20000  # per transcript: six of the original 200k-char excerpts overflow the context window
    max_rows: int | None = None  # per side, for quick looks
    write_back: bool = False  # intend to push later: check write access now, before spending


def _previous(path) -> dict[str, dict]:
    """Labels of the last output by cache key, so a resumed run never blanks a finished row."""
    if path is None or not store.exists(path):
        return {}
    wanted = ["key", "failure_mode", "failure_summary"]
    if not set(wanted) <= set(store.parquet_file(path).schema_arrow.names):
        return {}  # e.g. an empty table written without columns by an older version: nothing to keep
    rows = store.read_table(path, columns=wanted).to_pylist()
    return {
        r["key"]: {"category": r["failure_mode"], "summary": r["failure_summary"]} for r in rows if r["failure_mode"]
    }


def _record(side: str, repo: str | None, row: dict, got: dict, annotator: str) -> dict:
    return {
        "side": side,
        "trace_id": row["trace_id"],
        "task_id": row["task_id"],
        "source_repo": repo,
        "failure_mode": got["category"],
        "failure_summary": got["summary"],
        "status": got["status"],
        "error": got["error"],
        "annotator": annotator,
        "prompt_version": PROMPT_VERSION,
        "key": got["key"],
    }


@dg.asset(
    partitions_def=models_partitions,
    kinds={"openai", "parquet"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    pool="llm",
    check_specs=[calls_check_spec("failure_modes")],
)
def failure_modes(
    context: dg.AssetExecutionContext,
    config: FailureModesConfig,
    llm: LLMResource,
    hub: HubResource,
    baseline_traces: TraceTableRef,
    post_rl_traces: TraceTableRef,
):
    """Failure-mode category + short analysis per trace, both sides, with distributions and shift."""
    import pyarrow as pa
    import pyarrow.compute as pc

    partition = context.partition_key
    refs = {"baseline_traces": baseline_traces, "post_rl_traces": post_rl_traces}
    repos = {side: repo_from_spec(refs[name].source) for side, name in SIDES}
    preflight = require_writable(hub.client(), [r for r in repos.values() if r]) if config.write_back else []

    client = config.session(llm, "annotate", partition, context.log.info)
    path = table_path(partition, context.run.run_id)  # this run's own file: a concurrent run writes another
    known = {} if config.force else _previous(latest_table(context.instance, partition))
    # One record batch at a time (rl_assets.support.trace_stream): memory stays flat in the table's size.
    parts: list[pa.Table] = []
    labels: dict[str, list[str]] = {}
    total: dict[str, int] = {}
    for side, name in SIDES:
        only = None
        if config.max_rows is not None:
            only = {r["trace_id"] for r in load_rows(refs[name].path, ("trace_id",))[: config.max_rows]}
        labels[side], total[side] = [], 0
        for rows in iter_trace_rows(refs[name].path, (*ROW_COLUMNS, "conversation"), only):
            got = annotate(rows, client, batch_size=config.batch_size, char_limit=config.char_limit, known=known)
            records = [_record(side, repos[side], r, got[r["trace_id"]], client.model) for r in rows]
            parts.append(pa.Table.from_pylist(records, schema=_schema()))
            labels[side].extend(g["category"] for g in got.values() if g["category"])
            total[side] += len(rows)

    table = pa.concat_tables(parts) if parts else _schema().empty_table()
    write_table(table, path)
    n_rows = table.num_rows
    n_failed = table.num_rows - pc.count(table["failure_mode"]).as_py()
    dist = distribution(labels)
    value = FailureModeTableRef(
        path=path,
        rows=n_rows,
        annotator=client.model,
        prompt_version=PROMPT_VERSION,
        failed=n_failed,
        coverage={side: (len(labels[side]) / total[side]) if total[side] else None for side, _ in SIDES},
        counts=dist["counts"],
        shares=dist["shares"],
        shift=dist["shift"],
        write_back_preflight=preflight,
        calls=client.summary(),
        call_failures=failure_summary([e for e in table.column("error").to_pylist() if e], n_rows),
    )
    table_md = failure_mode_table(dist)
    yield dg.Output(
        value,
        metadata=rounded_metadata(
            {
                "annotator": client.model,
                "rows": n_rows,
                "failed": value.failed,
                "calls": client.counters["calls"],
                "spend_usd": client.budget.snapshot()["used_usd"],
                "table": dg.MetadataValue.path(path),
                "distribution": dg.MetadataValue.md(table_md),
            }
        ),
    )
    yield calls_check("failure_modes", value.call_failures)
