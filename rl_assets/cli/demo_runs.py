"""The Dagster runs of `rldelta demo --run`, spread over worker processes.

Each run is one `execute_in_process` on the user's instance (DAGSTER_HOME), so it shows in `make ui`
like any other run. Runs of different model partitions write different outputs, so they may run at
the same time (the instance's own queue allows that too: one run per partition, four at once); a run
that reads other partitions' results waits for them (`after`). The workers are forked once the
definitions are loaded, so each run pays neither the import nor the definitions build again.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

# The console shows warnings and failures; every event is still in the instance and the UI.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


@dataclass(frozen=True)
class DemoRun:
    """One run: `kind` names its function in RUNS, `args` its arguments after the instance; it starts
    once the runs named in `after` have ended."""

    name: str
    kind: str
    args: tuple
    after: tuple[str, ...] = ()


def default_workers() -> int:
    """Two worker processes where there are two cores: the runs are CPU-bound and each holds a few
    hundred MB, so more workers than cores only adds memory."""
    return max(1, min(2, os.cpu_count() or 1))


def _key(name: str):
    import dagster as dg

    return dg.AssetKey(name)


def summarize_run(result) -> tuple[list[str], list[str]]:
    """(materialized asset keys, "step: first line of its error" per failed step) of one run."""
    import dagster as dg

    done, failed = [], []
    for event in result.all_events:
        if event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION:
            done.append(event.asset_key.to_user_string())
        elif event.event_type == dg.DagsterEventType.STEP_FAILURE:
            failed.append(f"{event.step_key}: {event.event_specific_data.error.message.strip().splitlines()[0]}")
    return done, failed


def run_analysis(instance, model_id: str, settings: dict | None = None, asset_selection=None):
    """Run the analyze_model job (or the `asset_selection` keys of it) for one partition in this process,
    recorded in the instance."""
    from rl_assets.definitions import defs
    from rl_assets.jobs.analyze import wrote_index

    job = defs.resolve_job_def("analyze_model")
    run_config = {**QUIET, "resources": {"settings": {"config": settings}}} if settings else QUIET
    result = job.execute_in_process(
        instance=instance,
        partition_key=model_id,
        raise_on_error=False,
        run_config=run_config,
        asset_selection=asset_selection,
    )
    # The run's last step writes INDEX.md; when a failure kept it from getting there, INDEX.md comes
    # in its own run so it reports the failure (the index sensors do the same for other runs).
    if not wrote_index(instance, result.run_id, model_id):
        defs.resolve_job_def("write_index").execute_in_process(
            instance=instance, partition_key=model_id, raise_on_error=False, run_config=QUIET
        )
    return result


def run_lineage(instance, job: str, members: list[str]):
    """Refresh one RL job's run lineage, then its members' INDEX.md (which link to it)."""
    from rl_assets.definitions import defs

    if not instance.has_dynamic_partition("rl_jobs", job):
        instance.add_dynamic_partitions("rl_jobs", [job])
    result = defs.resolve_job_def("refresh_lineage").execute_in_process(
        instance=instance, partition_key=job, raise_on_error=False, run_config=QUIET
    )
    for model_id in members:
        defs.resolve_job_def("write_index").execute_in_process(
            instance=instance, partition_key=model_id, raise_on_error=False, run_config=QUIET
        )
    return result


def run_comparison(instance, benchmark: str):
    from rl_assets.definitions import defs

    job = defs.resolve_implicit_job_def_def_for_assets([_key("model_comparison")])
    if job is None:
        raise RuntimeError("the definitions have no job for model_comparison")
    config = {**QUIET, "ops": {"model_comparison": {"config": {"benchmark": benchmark}}}}
    return job.execute_in_process(
        instance=instance, asset_selection=[_key("model_comparison")], raise_on_error=False, run_config=config
    )


def run_integrity(instance, model_id: str):
    """The training and reward-integrity assets of a demo run that has no evals (demo/integrity_runs.py)."""
    from rl_assets.definitions import defs
    from rl_assets.demo.integrity_runs import INTEGRITY_ASSETS

    return defs.resolve_job_def("analyze_model").execute_in_process(
        instance=instance,
        partition_key=model_id,
        asset_selection=[_key(a) for a in INTEGRITY_ASSETS],
        raise_on_error=False,
        run_config=QUIET,
    )


RUNS: dict[str, Callable[..., Any]] = {
    "analysis": run_analysis,
    "lineage": run_lineage,
    "comparison": run_comparison,
    "integrity": run_integrity,
}

_worker_instance = None  # each worker process opens the instance once (set by _open_instance)


def quiet_dagster_warnings() -> None:
    """Hide Dagster's API-stability notices (Beta/Preview) from the demo's console: notices, not problems."""
    import warnings

    import dagster as dg

    for category in (dg.BetaWarning, dg.PreviewWarning):
        warnings.filterwarnings("ignore", category=category)


def _open_instance() -> None:
    import dagster as dg

    global _worker_instance
    quiet_dagster_warnings()  # a caller of execute() that did not go through `rldelta demo` sets none
    _worker_instance = dg.DagsterInstance.get()


def _execute(run: DemoRun) -> tuple[list[str], list[str]]:
    """A run in a worker; only its summary crosses back (results hold unpicklable Dagster objects)."""
    return summarize_run(RUNS[run.kind](_worker_instance, *run.args))


def execute(runs: list[DemoRun], instance, workers: int) -> Iterator[tuple[DemoRun, tuple[list[str], list[str]]]]:
    """(run, summarize_run of it) for every run, in list order; with `workers` > 1 the runs go to that
    many forked processes, each started once its `after` runs have ended, earlier in the list first.
    `runs` lists every run after the runs it waits for."""
    names = [run.name for run in runs]
    for i, run in enumerate(runs):
        if not set(run.after) <= set(names[:i]):
            raise ValueError(
                f"demo run {run.name!r} waits on {sorted(set(run.after) - set(names[:i]))}, not listed before it"
            )
    if workers <= 1:
        for run in runs:
            yield run, summarize_run(RUNS[run.kind](instance, *run.args))
        return
    import dagster as dg

    from rl_assets.definitions import defs  # noqa: F401 -- loaded here, so the forked workers inherit it

    if instance is None:
        # Every worker opens DAGSTER_HOME's instance at once; on a new home they would race to create the
        # same SQLite tables ("table runs already exists" kills a worker), so the tables are made here first.
        dg.DagsterInstance.get().dispose()

    # fork: the workers share the loaded definitions; `python -m rl_assets.cli` would run again under spawn
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_open_instance) as pool:
        futures: dict[str, Future] = {}

        def submit_ready() -> None:
            # At most `workers` in flight, so a run that became ready goes before runs later in the list.
            for run in runs:
                busy = sum(not f.done() for f in futures.values())
                ready = all(name in futures and futures[name].done() for name in run.after)
                if busy < workers and run.name not in futures and ready:
                    futures[run.name] = pool.submit(_execute, run)

        submit_ready()
        for run in runs:
            while run.name not in futures or not futures[run.name].done():
                wait([f for f in futures.values() if not f.done()], return_when=FIRST_COMPLETED)
                submit_ready()
            yield run, futures[run.name].result()
