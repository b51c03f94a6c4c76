"""The shipped `analyze_model` job on the Celery executor, for tests/services/test_scaleout_celery.py.

A module-level function, so each Celery worker rebuilds the very same job by module name (the
shipped job keeps its own executor; only this variant hands its steps to Celery).
"""


def analyze_model_on_celery():
    # imported here so that collecting this module (doctests) works where dagster-celery is absent
    from dagster_celery import celery_executor

    from rl_assets.definitions import defs

    return defs.resolve_job_def("analyze_model").with_executor_def(celery_executor)
