"""`rldelta`: what Dagster has no verb for — the demo world, registering models, listing eval pairs."""

from __future__ import annotations

import argparse
import os
import sys

from rl_assets.cli.demo_runs import QUIET  # noqa: F401 -- the runs' log config, also used by tests from here


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


def cmd_add_model(args) -> int:
    from rl_assets.partitions import InvalidRepoId

    try:
        new = register_models(_instance(), args.model_ids)
    except InvalidRepoId as exc:
        print(f"rldelta: {exc}", file=sys.stderr)
        return 2
    for m in args.model_ids:
        print(f"{'registered' if m in new else 'already registered'}: {m}")
    return 0


def cmd_list_evals(args) -> int:
    from resources.registry import RegistryResource
    from rl_assets.analysis.eval_resolution import ResolutionError
    from rl_assets.support.resolve import format_table, resolve_eval_pair
    from rl_assets.values.masking import mask

    try:
        resolved = resolve_eval_pair(
            RegistryResource().client(),
            args.model_id,
            mode=args.selection,
            benchmark=args.benchmark,
            score_key=args.score_key,
            include_unfinished=args.include_unfinished,
        )
    except ResolutionError as exc:
        print(f"rldelta: {exc}", file=sys.stderr)
        return 2
    lines = [
        f"model_id={resolved['model_id']} base_model={resolved['base_model_name']}",
        format_table(resolved),
        f"\nchosen: {resolved['reason']}",
        *(f"  note: {note}" for note in resolved["notes"]),
    ]
    print(mask("\n".join(lines)))  # registry rows are data: a credential in one is never printed
    return 0


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


def cmd_register_eval(args) -> int:
    from resources.registry import RegistryResource
    from rl_assets.cli.register_eval import RegisterError, register_eval
    from rl_assets.partitions import InvalidRepoId

    try:
        job = register_eval(
            RegistryResource().client(),
            args.model_id,
            benchmark=args.benchmark,
            traces=args.traces,
            base_model=args.base_model,
            status=args.status,
            started=args.started,
            ended=args.ended,
            score=args.score,
            training_start=args.training_start,
            training_end=args.training_end,
        )
    except (RegisterError, InvalidRepoId) as exc:
        print(f"rldelta: {exc}", file=sys.stderr)
        return 2
    base = f", base model {job['base_model']}" if job["base_model"] else ""
    print(
        f"{job['outcome']} eval {job['id']}: {job['model']}{base} on {job['benchmark']}, {job['job_status']}, "
        f"traces {job['hf_traces_link']}"
    )
    return 0


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


def _report_run(failed: list[str], report) -> int:
    """Print a demo run's failed steps and its report's path; the number of failed steps."""
    for line in failed:
        print(f"   FAILED {line}")
    print(f"   report: {report}")
    return len(failed)


def cmd_demo(args) -> int:
    from rl_assets.cli.demo_runs import default_workers, execute
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
    workers = args.workers or default_workers()
    runs = demo_plan(models, LINEAGE_JOB, list(LINEAGE_MEMBERS), list(INTEGRITY_MODELS))
    print(f"{len(runs)} runs on {workers} worker process(es)")
    failures = 0
    for run, (done, failed) in execute(runs, instance, workers):
        if run.kind == "analysis":
            settings = run.args[1]
            print(f"\n== analysing {run.name}" + (f" (settings: {settings})" if settings else " (default settings)"))
            print(f"   materialized {len(done)} asset(s); {len(failed)} step(s) failed")
            failures += _report_run(failed, report_dir(run.name) / INDEX_FILE)
        elif run.kind == "comparison":
            print(f"\n== comparing models on {DEMO_COMPARISON_BENCHMARK}")
            failures += _report_run(failed, reports_root() / MODEL_COMPARISON / "comparison.md")
        elif run.kind == "lineage":
            print(f"\n== run lineage of {LINEAGE_JOB} ({len(LINEAGE_MEMBERS)} checkpoints)")
            failures += _report_run(failed, lineage_folder / "lineage.md")
            failures += _check_lineage(world.ground_truth_path, lineage_folder / "lineage.json")
        else:  # verl and TRL runs: training logs only (docs/integrity.md)
            print(f"\n== reward integrity of {run.name}")
            failures += _report_run(failed, report_dir(run.name) / INDEX_FILE)
    failures += _check_integrity(instance, world.ground_truth_path)
    print(f"\nreports: {reports_root()}")
    print("open the Dagster UI on the same instance with `make ui`")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rldelta", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("add-model", help="register model partitions (Hub repo ids)")
    p.add_argument("model_ids", nargs="+")
    p.set_defaults(func=cmd_add_model)

    p = sub.add_parser("list-evals", help="show a model's matched / post-only / baseline-only eval pairs")
    p.add_argument("model_id")
    p.add_argument("--selection", default="largest-delta")
    p.add_argument("--benchmark")
    p.add_argument("--score-key")
    p.add_argument("--include-unfinished", action="store_true")
    p.set_defaults(func=cmd_list_evals)

    p = sub.add_parser("register-eval", help="record one eval run of a model in the configured registry")
    p.add_argument("model_id", help="the evaluated model's Hub repo id (org/name)")
    p.add_argument("--benchmark", required=True, help="benchmark name (created in the registry if new)")
    p.add_argument("--traces", required=True, help="the eval's traces: Hub dataset id, URL, or a local file/folder")
    p.add_argument("--base-model", help="repo id of the model RL started from (its evals are the baseline side)")
    p.add_argument("--status", default="Finished", help="job status; only Finished evals are paired")
    p.add_argument("--started", help="ISO 8601 start time (default: now)")
    p.add_argument("--ended", help="ISO 8601 end time (default: --started, else now)")
    p.add_argument("--score", type=float, help="the eval's score (metrics.accuracy), used to rank benchmarks")
    p.add_argument("--training-start", help="ISO 8601 time the model's RL training started (models.training_start)")
    p.add_argument("--training-end", help="ISO 8601 time the model's RL training ended: the overlay's post-RL marker")
    p.set_defaults(func=cmd_register_eval)

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
