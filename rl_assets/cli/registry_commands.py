"""`rldelta add-model`, `list-evals`, `register-eval`: the verbs on the model registry and its evals."""

from __future__ import annotations

import sys


def cmd_add_model(args) -> int:
    from rl_assets.cli.instance import open_instance, register_models
    from rl_assets.partitions import InvalidRepoId

    try:
        new = register_models(open_instance(), args.model_ids)
    except InvalidRepoId as exc:
        print(f"rldelta: {exc}", file=sys.stderr)
        return 2
    for m in args.model_ids:
        print(f"{'registered' if m in new else 'already registered'}: {m}")
    return 0


def cmd_list_evals(args) -> int:
    from resources.registry import RegistryResource
    from rl_assets.analysis.pairing.eval_resolution import ResolutionError
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


def add_registry_parsers(sub) -> None:
    """The three verbs' subcommands on `rldelta`'s parser."""
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
