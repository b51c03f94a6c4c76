"""`rldelta`: what Dagster has no verb for — the demo world, registering models, listing eval pairs,
analysing one's own pair of eval runs in one command."""

from __future__ import annotations

import argparse

from rl_assets.cli.demo_runs import QUIET  # noqa: F401 -- the runs' log config, also used by tests from here
from rl_assets.cli.instance import open_instance, register_models, report_run

# The demo analyses rl-beta on the agentic benchmark (pinned), rl-alpha with the default
# largest-delta selection (which picks the reasoning benchmark), so one `make demo` exercises
# the behaviour analyses and the learning audit alike.
DEMO_SETTINGS = {
    "rldelta-demo/rl-beta-40-8B": {"eval_selection": "benchmark", "eval_benchmark": "terminal-bench-mini"},
}
DEMO_COMPARISON_BENCHMARK = "terminal-bench-mini"


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


def demo_plan(models: list[str], lineage_job: str, lineage_members: list[str], integrity_models: list[str]):
    """Every run of `demo --run`, in the order they are reported; a run starts once those it waits on
    have ended (rl_assets/cli/demo_runs.py). The run lineage reads its checkpoints' analyses, the
    comparison every model's trace tables; the integrity runs read only their own training logs."""
    from rl_assets.cli.demo_runs import DemoRun

    members = [m for m in models if m in lineage_members]
    others = [m for m in models if m not in lineage_members]
    analysis = lambda m: DemoRun(m, "analysis", (m, DEMO_SETTINGS.get(m)))  # noqa: E731
    return [
        *(analysis(m) for m in members),
        DemoRun(lineage_job, "lineage", (lineage_job, members), after=tuple(members)),
        *(analysis(m) for m in others),
        DemoRun("comparison", "comparison", (DEMO_COMPARISON_BENCHMARK,), after=tuple(models)),
        *(DemoRun(m, "integrity", (m,)) for m in integrity_models),
    ]


def _build_world(seed: int, scale: float):
    from rl_assets.demo import build_world

    return build_world(seed=seed, scale=scale)


def _start_world_build(seed: int, scale: float):
    """Build the demo world in a forked process while this one imports Dagster, opens the instance and
    loads the definitions (each side takes several seconds of one core). Returns a function that waits
    for the world and returns it (or raises what the build raised)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # forked before the heavy imports, so the two sides import side by side instead of one after the other
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    future = pool.submit(_build_world, seed, scale)

    def world():
        try:
            return future.result()
        finally:
            pool.shutdown()

    return world


def cmd_demo(args) -> int:
    from rl_assets.cli.demo_runs import default_workers, execute, quiet_dagster_warnings
    from rl_assets.support.report_server import record_links_for_make_ui

    # before any worker forks: every run records its report links where `make ui` will serve them
    links = record_links_for_make_ui() if args.run else None
    workers = args.workers or default_workers()
    pending_world = _start_world_build(args.seed, args.scale) if args.run and workers > 1 else None
    from rl_assets.demo.integrity_runs import MODELS as INTEGRITY_MODELS
    from rl_assets.demo.lineage_job import JOB as LINEAGE_JOB
    from rl_assets.demo.lineage_job import MEMBERS as LINEAGE_MEMBERS
    from rl_assets.store import lineage_report_dir, reports_root
    from rl_assets.support.report_files import INDEX_FILE, MODEL_COMPARISON

    if pending_world:
        instance = open_instance()
        from rl_assets.definitions import defs  # noqa: F401 -- loaded now, beside the world build; workers inherit it

        world = pending_world()
    else:
        world, instance = _build_world(args.seed, args.scale), open_instance()
    print(f"demo world written: hub {world.hub_dir}, registry {world.registry_url}")
    print(f"ground truth: {world.ground_truth_path}")
    models = [*world.partitions, *LINEAGE_MEMBERS]  # the run-lineage job's checkpoints too (docs/lineage.md)
    register_models(instance, [*models, *INTEGRITY_MODELS])
    print(f"model partitions: {', '.join(models)}")
    if not args.run:
        return 0
    from rl_assets.store import report_dir

    lineage_folder = lineage_report_dir(LINEAGE_JOB)
    quiet_dagster_warnings()
    runs = demo_plan(models, LINEAGE_JOB, list(LINEAGE_MEMBERS), list(INTEGRITY_MODELS))
    print(f"{len(runs)} runs on {workers} worker process(es)")
    failures = 0
    for run, (done, failed) in execute(runs, instance, workers):
        if run.kind == "analysis":
            settings = run.args[1]
            print(f"\n== analysing {run.name}" + (f" (settings: {settings})" if settings else " (default settings)"))
            print(f"   materialized {len(done)} asset(s); {len(failed)} step(s) failed")
            failures += report_run(failed, report_dir(run.name) / INDEX_FILE)
        elif run.kind == "comparison":
            print(f"\n== comparing models on {DEMO_COMPARISON_BENCHMARK}")
            failures += report_run(failed, reports_root() / MODEL_COMPARISON / "comparison.md")
        elif run.kind == "lineage":
            print(f"\n== run lineage of {LINEAGE_JOB} ({len(LINEAGE_MEMBERS)} checkpoints)")
            failures += report_run(failed, lineage_folder / "lineage.md")
            failures += _check_lineage(world.ground_truth_path, lineage_folder / "lineage.json")
        else:  # verl and TRL runs: training logs only (docs/integrity.md)
            print(f"\n== reward integrity of {run.name}")
            failures += report_run(failed, report_dir(run.name) / INDEX_FILE)
    failures += _check_integrity(instance, world.ground_truth_path)
    print(f"\nreports: {reports_root()}")
    print(f"open the Dagster UI on the same instance with `make ui`; the report links in it open at {links}")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    from rl_assets.cli.analyze import add_analyze_parser
    from rl_assets.cli.registry_commands import add_registry_parsers

    parser = argparse.ArgumentParser(prog="rldelta", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    add_registry_parsers(sub)
    add_analyze_parser(sub)

    p = sub.add_parser("demo", help="build the demo world (and with --run analyse it end to end)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--run", action="store_true", help="register partitions and materialize every asset")
    p.add_argument(
        "--workers", type=int, help="worker processes for the runs (default: up to 2, one per core; 1: in this process)"
    )
    p.set_defaults(func=cmd_demo)

    args = parser.parse_args(argv)
    return args.func(args)
