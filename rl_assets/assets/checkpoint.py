"""`checkpoint`: the model repo's manifest (read by resources/hub/manifest.py), with the original
pipeline's "Step 0" preflight as asset checks."""

import dagster as dg

from resources.hub import HubError, HubResource, RepoNotFoundError
from resources.hub.manifest import BadRepoFile, read_manifest
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.render.escape import md_text
from rl_assets.partitions import InvalidRepoId, models_partitions, validate_repo_id
from rl_assets.support.checks import not_applicable
from rl_assets.values.escape import md_table

PREFLIGHT = {
    "has_weights": ("Repo exists and has at least one weights file", dg.AssetCheckSeverity.ERROR),
    "has_training_logs": (
        "training_logs/ present (needed by Q2 training metrics); not applicable without them",
        dg.AssetCheckSeverity.WARN,
    ),
    "rl_traces_dataset_exists": (
        "RL-trace dataset org/job_name exists (needed by Q2 temporal, Q3 overlay); "
        "not applicable when none is published",
        dg.AssetCheckSeverity.WARN,
    ),
    "has_readme": ("README.md present", dg.AssetCheckSeverity.WARN),
}
# Published without these by design (not every RL team uploads logs or rollouts): the check passes
# as "not applicable", and the questions that need them say so in their own reports.
OPTIONAL = {
    "has_training_logs": "no training_logs/ in this repo: Q2 training metrics do not apply",
    "rl_traces_dataset_exists": "no RL rollout dataset published: Q2 temporal and Q3 overlay do not apply",
}


def _check_results(m: dict):
    passed = {
        "has_weights": (m["has_weights"], f"{len(m['weights_files'])} weights file(s)"),
        "has_training_logs": (m["has_training_logs"], f"{len(m['training_logs_files'])} file(s) under training_logs/"),
        "rl_traces_dataset_exists": (
            m["rl_traces_exists"],
            f"found {m['rl_traces_dataset']}"
            if m["rl_traces_exists"]
            else f"none of {m['rl_traces_candidates'] or '[no job_name]'} exists ({m['job_name_source']})",
        ),
        "has_readme": (m["has_readme"], "README.md" if m["has_readme"] else "no README.md"),
    }
    for name, (ok, text) in passed.items():
        if not ok and name in OPTIONAL:
            yield not_applicable(name, OPTIONAL[name], detail=text)
        else:
            yield dg.AssetCheckResult(
                check_name=name, passed=bool(ok), severity=PREFLIGHT[name][1], metadata={"detail": text}
            )


@dg.asset(
    partitions_def=models_partitions,
    kinds={"huggingface", "python"},
    check_specs=[
        dg.AssetCheckSpec(name, asset="checkpoint", partitions_def=models_partitions, description=md_text(desc))
        for name, (desc, _) in PREFLIGHT.items()
    ],
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
    pool="hub",
)
def checkpoint(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings):
    """The model repo's manifest: revision, weights, training_logs, rl_config and its RL-trace dataset."""
    repo_id = context.partition_key
    try:
        validate_repo_id(repo_id)
        manifest = read_manifest(hub.client(), repo_id, list(settings.rl_traces_orgs))
    except (InvalidRepoId, RepoNotFoundError, BadRepoFile) as exc:
        raise dg.Failure(description=f"checkpoint {repo_id}: {exc}", allow_retries=False) from exc
    except HubError as exc:
        raise dg.Failure(description=f"checkpoint {repo_id}: hub error: {exc}") from exc
    table = md_table(
        ["item", "value"],
        [
            [k, md_text(manifest[k])]
            for k in ("revision", "has_weights", "has_training_logs", "job_name", "rl_traces_dataset")
        ],
        align="--",
    )
    yield dg.MaterializeResult(  # not Output(data_version=…): a beta parameter that warns on every run
        value=manifest,
        data_version=dg.DataVersion(manifest["checkpoint_fingerprint"]),
        metadata={
            "revision": manifest["revision"],
            "training_logs_revision": manifest["training_logs_revision"] or "none",
            "files": manifest["n_files"],
            "preflight": dg.MetadataValue.md(table),
        },
    )
    yield from _check_results(manifest)
