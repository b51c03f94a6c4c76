"""Dagster types for asset inputs that take one of several hand-over kinds (a trace table or "not
applicable"): Dagster infers a type from a plain class annotation but not from a union, so such an
input names its type in `ins=` (`dg.AssetIn(dagster_type=RL_TRACES)`). The IO manager reads the
same union (`typing_type`) to refuse a stored value of another kind with the file's name."""

import dagster as dg

from rl_assets.values.handover import NotApplicable, StepTableRef, TraceTableRef, TrainingLogsRef


def one_of(*kinds: type) -> dg.DagsterType:
    """An isinstance check over `kinds`, its typing type their Union (what the IO manager reads)."""
    return dg.PythonObjectDagsterType(
        kinds,
        name="Or".join(k.__name__ for k in kinds),
        description=f"a stored {' or '.join(k.__name__ for k in kinds)} (rl_assets/values/handover.py)",
    )


RL_TRACES = one_of(TraceTableRef, NotApplicable)
TRAINING_LOGS = one_of(TrainingLogsRef, NotApplicable)
TRAINING_METRICS = one_of(StepTableRef, NotApplicable)
