"""`rldelta analyze --baseline <traces> --post <traces>`: one's own pair of eval runs analysed in one
command, on the instance `make ui` opens.

What the README's "Try it on your own traces" block does by hand, in one process: both eval runs go
into the registry (`register-eval`: the baseline as the base model's eval, the post-RL one as the
model's), the model's partition is added, and the analyses that need no Hub upload run (everything
downstream of `eval_pair` but the temporal overlay, which needs the checkpoint's RL rollouts) as one
`analyze_model` run recorded in the instance, INDEX.md last, on the benchmark just registered (the
model's other evals in the registry are not what the user asked about). Doing it in one process is what makes the
CLI and Dagster agree on the instance: the README block once ran `rldelta add-model` on one instance and
`dagster asset materialize` on another (DagsterUnknownPartitionError).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DEFAULT_BENCHMARK = "own-traces"
# eval_pair and what reads it, but not the overlay: it needs the checkpoint's RL rollout dataset on the Hub
NOT_WITHOUT_HUB = ("eval_temporal_overlay",)


def default_model_id(traces: str) -> str:
    """`local/<name>` from a traces path (its file stem or folder name), made a valid repo id."""
    stem = Path(traces.rstrip("/")).name.split(".")[0] or "model"
    name = re.sub(r"-{2,}", "-", re.sub(r"[^A-Za-z0-9._]+", "-", stem)).strip("-.") or "model"
    return f"local/{name}"


def selection():
    """The asset keys of analyze_model that need only the eval pair (no Hub upload)."""
    import dagster as dg

    from rl_assets.assets import ANALYSIS_GROUPS
    from rl_assets.definitions import defs

    wanted = (
        dg.AssetSelection.groups(*ANALYSIS_GROUPS) & dg.AssetSelection.assets("eval_pair").downstream()
    ) - dg.AssetSelection.assets(*NOT_WITHOUT_HUB)
    return sorted(wanted.resolve(defs.resolve_asset_graph()), key=lambda k: k.to_user_string())


def cmd_analyze(args) -> int:
    from resources.registry import RegistryResource
    from rl_assets.cli.demo_runs import quiet_dagster_warnings, run_analysis, summarize_run
    from rl_assets.cli.instance import open_instance, register_models, report_run
    from rl_assets.cli.register_eval import RegisterError, register_eval, traces_link
    from rl_assets.partitions import InvalidRepoId
    from rl_assets.store import report_dir
    from rl_assets.support.report_files import INDEX_FILE
    from rl_assets.support.report_server import record_links_for_make_ui

    model = args.model or default_model_id(args.post)
    base = args.base_model or f"{model}-baseline"
    links = record_links_for_make_ui()  # report links that open under `make ui`
    try:
        for flag, traces in (("--baseline", args.baseline), ("--post", args.post)):
            try:  # both checked before either is registered: a bad --post leaves no half-registered pair
                traces_link(traces)
            except RegisterError as exc:
                raise RegisterError(f"{flag}: {exc}") from None
        client = RegistryResource().client()
        for model_id, traces, base_model in ((base, args.baseline, None), (model, args.post, base)):
            job = register_eval(client, model_id, benchmark=args.benchmark, traces=traces, base_model=base_model)
            print(f"{job['outcome']} eval of {model_id} on {args.benchmark}: {job['hf_traces_link']}")
        instance = open_instance()
        register_models(instance, [model])
    except (RegisterError, InvalidRepoId) as exc:
        print(f"rldelta: {exc}", file=sys.stderr)
        return 2
    print(f"model partition {model} (baseline {base}) on the Dagster instance {instance.root_directory}")
    quiet_dagster_warnings()
    keys = selection()
    print(f"analysing: {', '.join(k.to_user_string() for k in keys)}")
    # pinned to the benchmark just registered: the model may have other evals the default selection would pick
    pinned = {"eval_selection": "benchmark", "eval_benchmark": args.benchmark}
    done, failed = summarize_run(run_analysis(instance, model, pinned, asset_selection=keys))
    print(f"materialized {len(done)} asset(s); {len(failed)} step(s) failed")
    report_run(failed, report_dir(model) / INDEX_FILE)
    print(f"reports: {report_dir(model)} (links in the UI open at {links}/ once `make ui` runs)")
    return 1 if failed else 0


def add_analyze_parser(sub) -> None:
    p = sub.add_parser(
        "analyze",
        help="register a baseline and a post-RL eval run and analyse the pair (one command, on `make ui`'s instance)",
    )
    p.add_argument("--baseline", required=True, help="the base model's eval traces: local file or folder, or Hub id")
    p.add_argument("--post", required=True, help="the RL checkpoint's eval traces on the same benchmark")
    p.add_argument("--model", help="the RL checkpoint's repo id org/name (default: local/<name of --post>)")
    p.add_argument("--base-model", help="the base model's repo id (default: <model>-baseline)")
    p.add_argument("--benchmark", default=DEFAULT_BENCHMARK, help=f"benchmark name (default {DEFAULT_BENCHMARK})")
    p.set_defaults(func=cmd_analyze)
