"""Is a run that the instance still calls STARTED actually running? For INDEX.md's "interrupted".

A run killed with `kill -9` (or OOM) never writes its end: the instance keeps it STARTED until run
monitoring (the daemon) marks it failed; without this check INDEX.md would say "being materialized
right now" forever.
Every Dagster event records the pid that emitted it; the run is gone when the process that
started it is gone. That is only decidable on the host that ran it, so this answers only for an
instance whose runs execute here (the default run launcher, or CLI runs); elsewhere it says
"unknown" and run monitoring decides.
"""

from __future__ import annotations

import dagster as dg

from rl_assets.fileutil import pid_alive  # the same "is this pid alive here" rule as stale temp files


def _runs_here(instance) -> bool:
    from dagster._core.launcher import DefaultRunLauncher

    return isinstance(instance.run_launcher, DefaultRunLauncher)


def run_process_gone(instance, run_id: str) -> bool:
    """True when the run's process on this host has exited without the run finishing."""
    if not _runs_here(instance):
        return False
    starts = instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_START)
    pids = [e.dagster_event.pid for e in starts if e.dagster_event is not None and e.dagster_event.pid]
    return bool(pids) and not pid_alive(pids[-1])
