"""What every `rldelta` command shares: the Dagster instance it opens, model partitions it registers, and
how a run's outcome is printed. Its own module, so the command modules (analyze.py, registry_commands.py)
and the CLI entry point (__init__.py) import it without importing each other."""

from __future__ import annotations

import os
import sys


def open_instance():
    """The persistent Dagster instance rldelta's commands use (the one `make ui` opens)."""
    import dagster as dg

    from rl_assets.settings import home_dir

    # Same persistent instance as `make ui`, so partitions and runs show up there. Said out loud when
    # DAGSTER_HOME is unset: a `dagster` command in that shell would use another (throwaway) instance
    # and not know the partitions added here (issue 36: DagsterUnknownPartitionError).
    if not os.environ.get("DAGSTER_HOME", "").strip():
        home = os.environ["DAGSTER_HOME"] = str((home_dir() / "dagster").resolve())
        print(
            f"rldelta: DAGSTER_HOME is unset: using the Dagster instance {home} (the one `make ui` opens)."
            f" `dagster` commands see it only after: export DAGSTER_HOME={home}",
            file=sys.stderr,
        )
    from rl_assets.support.instance import ensure_instance_yaml

    ensure_instance_yaml(os.environ["DAGSTER_HOME"])
    return dg.DagsterInstance.get()


def register_models(instance, model_ids: list[str]) -> list[str]:
    """Validate and add model partitions; returns the ids that were new."""
    from rl_assets.partitions import models_partitions, validate_repo_id

    for model_id in model_ids:
        validate_repo_id(model_id)
    existing = set(instance.get_dynamic_partitions(models_partitions.name))
    new = [m for m in model_ids if m not in existing]
    if new:
        instance.add_dynamic_partitions(models_partitions.name, new)
    return new


def report_run(failed: list[str], report) -> int:
    """Print a demo run's failed steps and its report's path; the number of failed steps."""
    for line in failed:
        print(f"   FAILED {line}")
    print(f"   report: {report}")
    return len(failed)
