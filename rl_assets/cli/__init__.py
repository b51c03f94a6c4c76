"""`rldelta`: what Dagster has no verb for — the demo world, registering models, listing eval pairs."""

from __future__ import annotations

import argparse
import os


def _instance():
    import dagster as dg

    from rl_assets.settings import home_dir

    # Same persistent instance as `make ui`, so partitions and runs show up there.
    os.environ.setdefault("DAGSTER_HOME", str(home_dir() / "dagster"))
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


# The console shows warnings and failures; every event is still in the instance and the UI.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}

# The demo analyses rl-beta on the agentic benchmark (pinned), rl-alpha with the default
# largest-delta selection (which picks the reasoning benchmark), so one `make demo` exercises
# the behaviour analyses and the learning audit alike.
DEMO_SETTINGS = {
    "rldelta-demo/rl-beta-40-8B": {"eval_selection": "benchmark", "eval_benchmark": "terminal-bench-mini"},
}
DEMO_COMPARISON_BENCHMARK = "terminal-bench-mini"


def run_analysis(instance, model_id: str, settings: dict | None = None):
    """Run the analyze_model job for one partition in this process, recorded in the instance."""
    from rl_assets.definitions import defs
    from rl_assets.jobs.analyze import wrote_index

    job = defs.resolve_job_def("analyze_model")
    run_config = {**QUIET, "resources": {"settings": {"config": settings}}} if settings else QUIET
    result = job.execute_in_process(
        instance=instance, partition_key=model_id, raise_on_error=False, run_config=run_config
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

    job = defs.resolve_implicit_job_def_def_for_assets([dg_key("model_comparison")])
    config = {**QUIET, "ops": {"model_comparison": {"config": {"benchmark": benchmark}}}}
    return job.execute_in_process(
        instance=instance, asset_selection=[dg_key("model_comparison")], raise_on_error=False, run_config=config
    )


def run_integrity(instance, model_id: str):
    """The training and reward-integrity assets of a demo run that has no evals (demo/integrity_runs.py)."""
    from rl_assets.definitions import defs
    from rl_assets.demo.integrity_runs import INTEGRITY_ASSETS

    return defs.resolve_job_def("analyze_model").execute_in_process(
        instance=instance,
        partition_key=model_id,
        asset_selection=[dg_key(a) for a in INTEGRITY_ASSETS],
        raise_on_error=False,
        run_config=QUIET,
    )


def _check_integrity(instance, truth_path) -> int:
    """Print whether reward_integrity recovers the planted verdicts and onsets (demo/integrity_runs.py)."""
    import json

    from resources.io_manager import latest_value
    from rl_assets.demo.integrity_runs import mismatches

    truth = json.loads(truth_path.read_text())["reward_integrity"]
    wrong = mismatches({m: latest_value(instance, "reward_integrity", m) for m in truth["models"]}, truth)
    if not wrong:
        print("   planted verdicts and onsets recovered (ground_truth.json → reward_integrity), nothing else flagged")
    for line in wrong:
        print(f"   FAILED reward integrity vs ground truth: {line}")
    return len(wrong)


def dg_key(name: str):
    import dagster as dg

    return dg.AssetKey(name)


def summarize_run(result) -> tuple[list[str], list[str]]:
    import dagster as dg

    done, failed = [], []
    for event in result.all_events:
        if event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION:
            done.append(event.asset_key.to_user_string())
        elif event.event_type == dg.DagsterEventType.STEP_FAILURE:
            failed.append(f"{event.step_key}: {event.event_specific_data.error.message.strip().splitlines()[0]}")
    return done, failed


def _check_lineage(truth_path, lineage_path) -> int:
    """Print whether the demo job's lineage recovers its planted story (demo/lineage_check.py); failures."""
    import json

    from rl_assets.demo.lineage_check import mismatches

    if not lineage_path.exists():
        print(f"   FAILED no lineage at {lineage_path}")
        return 1
    wrong = mismatches(json.loads(lineage_path.read_text()), json.loads(truth_path.read_text())["lineage"])
    if not wrong:
        print("   planted story recovered (ground_truth.json → lineage), nothing else flagged")
    for line in wrong:
        print(f"   FAILED lineage vs ground truth: {line}")
    return len(wrong)


def _failed_steps(result, report) -> int:
    """Print a demo run's failed steps and its report's path; the number of failed steps."""
    _, failed = summarize_run(result)
    for line in failed:
        print(f"   FAILED {line}")
    print(f"   report: {report}")
    return len(failed)


def cmd_demo(args) -> int:
    from rl_assets.demo import build_world
    from rl_assets.demo.integrity_runs import MODELS as INTEGRITY_MODELS
    from rl_assets.demo.lineage_job import JOB as LINEAGE_JOB
    from rl_assets.demo.lineage_job import MEMBERS as LINEAGE_MEMBERS
    from rl_assets.store import lineage_report_dir, reports_root
    from rl_assets.support.report_files import INDEX_FILE, MODEL_COMPARISON

    world = build_world(seed=args.seed, scale=args.scale)
    print(f"demo world written: hub {world.hub_dir}, registry {world.registry_url}")
    print(f"ground truth: {world.ground_truth_path}")
    instance = _instance()
    models = [*world.partitions, *LINEAGE_MEMBERS]  # the run-lineage job's checkpoints too (docs/lineage.md)
    register_models(instance, [*models, *INTEGRITY_MODELS])
    print(f"model partitions: {', '.join(models)}")
    if not args.run:
        return 0
    import warnings

    import dagster as dg

    from rl_assets.store import report_dir

    lineage_folder = lineage_report_dir(LINEAGE_JOB)
    for category in (dg.BetaWarning, dg.PreviewWarning):  # API-stability notices, not problems
        warnings.filterwarnings("ignore", category=category)
    failures = 0
    for model_id in models:
        settings = DEMO_SETTINGS.get(model_id)
        print(f"\n== analysing {model_id}" + (f" (settings: {settings})" if settings else " (default settings)"))
        done, failed = summarize_run(run_analysis(instance, model_id, settings))
        print(f"   materialized {len(done)} asset(s); {len(failed)} step(s) failed")
        for line in failed:
            print(f"   FAILED {line}")
        failures += len(failed)
        print(f"   report: {report_dir(model_id) / INDEX_FILE}")
    print(f"\n== comparing models on {DEMO_COMPARISON_BENCHMARK}")
    failures += _failed_steps(
        run_comparison(instance, DEMO_COMPARISON_BENCHMARK), reports_root() / MODEL_COMPARISON / "comparison.md"
    )
    print(f"\n== run lineage of {LINEAGE_JOB} ({len(LINEAGE_MEMBERS)} checkpoints)")
    failures += _failed_steps(run_lineage(instance, LINEAGE_JOB, list(LINEAGE_MEMBERS)), lineage_folder / "lineage.md")
    failures += _check_lineage(world.ground_truth_path, lineage_folder / "lineage.json")
    for model_id in INTEGRITY_MODELS:  # verl and TRL runs: training logs only (docs/integrity.md)
        print(f"\n== reward integrity of {model_id}")
        failures += _failed_steps(run_integrity(instance, model_id), report_dir(model_id) / INDEX_FILE)
    failures += _check_integrity(instance, world.ground_truth_path)
    print(f"\nreports: {reports_root()}")
    print("open the Dagster UI on the same instance with `make ui`")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    from rl_assets.cli.registry_commands import add_registry_parsers

    parser = argparse.ArgumentParser(prog="rldelta", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    add_registry_parsers(sub)

    p = sub.add_parser("demo", help="build the demo world (and with --run analyse it end to end)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--run", action="store_true", help="register partitions and materialize every asset")
    p.set_defaults(func=cmd_demo)

    args = parser.parse_args(argv)
    return args.func(args)
