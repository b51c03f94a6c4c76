"""`run_lineage`: one RL job's checkpoints in step order, and when each change emerged (docs/lineage.md).

Thin wrapper, one partition per RL job (`rl_jobs`, keyed by `job_name`): reads what every member
checkpoint's analysis assets stored through the IO manager (any asset of ANALYSES,
rl_assets/assets/__init__.py: manifest, eval pair, trace-table references, Q1, judge, Q2 curves, audit,
reward integrity, ...; each loaded when the lineage first reads it, StoredValues), their post-RL trace
tables and the job's rollout table, calls rl_assets.analysis.lineage, and writes what lineage/report.py
renders: `<reports>/runs/<job>/lineage.{md,json}` with three PNGs.
A factory (`build_run_lineage`), like INDEX.md's: rl_assets/definitions.py passes it the analysis assets,
so no asset list is kept here and no other asset module is imported.
It has no Dagster deps on the per-model assets (no partition mapping joins `rl_jobs` to `models`):
sensors/lineage_sensor.py requests it after a member's analysis run ends.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import dagster as dg

from resources.io_manager import load_stored
from resources.settings_resource import AnalysisSettings
from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.result import lineage_result
from rl_assets.analysis.lineage.rollouts import ROLLOUT_COLUMNS
from rl_assets.analysis.lineage.steps import training_step
from rl_assets.analysis.q1.behavioral_delta import NEEDED
from rl_assets.partitions import MODELS, InvalidRepoId, rl_jobs_partitions, validate_job_name
from rl_assets.support.emit import check_result, dagster_metadata
from rl_assets.support.lineage_records import LINEAGE_ASSET
from rl_assets.support.report_files import write_lineage
from rl_assets.support.report_links import file_metadata
from rl_assets.values.handover import TraceTableRef

# pandas, pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

ASSET = LINEAGE_ASSET
MANIFEST = "checkpoint"  # the asset whose stored manifest names a model's RL job (`job_name`)
CHECKS = {
    "enough_checkpoints": (
        "At least two checkpoints of the job can be compared (one base, one benchmark); "
        "not applicable (passed) when the job has a single analysed checkpoint."
    ),
    "all_checkpoints_comparable": "Every analysed checkpoint of the job entered the lineage (none excluded).",
    "training_curves_found": (
        "The job's training logs gave reward / entropy / KL / response-length curves; "
        "not applicable (passed) when the job published no training logs."
    ),
}


class LineageConfig(dg.Config):
    benchmark: str = ""  # pin the lineage to this benchmark; "" = the one most checkpoints were evaluated on


def stored_assets(analyses: Sequence[dg.AssetsDefinition]) -> list[str]:
    """The per-model analysis assets whose stored values a member brings to the lineage, in ANALYSES order."""
    keys = [key.to_user_string() for assets in analyses for key in assets.keys]
    return [key for key in keys if key != MANIFEST]


class StoredValues(Mapping[str, Any]):
    """One member's stored values (asset -> value, None when never stored), each loaded the first time
    it is read: the lineage reads about half of ANALYSES, and every load is an event-log lookup and a
    file read. Which ones it reads follows from the lineage code itself, so no list of names is kept."""

    def __init__(self, names: Sequence[str], load: Callable[[str], Any], loaded: dict[str, Any]) -> None:
        self._names = tuple(dict.fromkeys([*loaded, *names]))
        self._load = load
        self._values = dict(loaded)

    def __getitem__(self, name: str) -> Any:
        if name not in self._values:
            if name not in self._names:
                raise KeyError(name)
            self._values[name] = self._load(name)
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def loaded(self) -> list[str]:
        """The assets read so far, in the order they were first read."""
        return list(self._values)


def job_checkpoints(
    instance: dg.DagsterInstance, io_manager: dg.IOManager, job: str, assets: Sequence[str]
) -> dict[str, StoredValues]:
    """model id -> its stored values (loaded when read), for every model partition whose manifest
    names this job."""
    out = {}
    for model in instance.get_dynamic_partitions(MODELS):
        manifest = load_stored(io_manager, MANIFEST, model, instance)
        if isinstance(manifest, dict) and manifest.get("job_name") == job:

            def load(asset: str, model: str = model) -> Any:
                return load_stored(io_manager, asset, model, instance)

            out[model] = StoredValues(assets, load, {MANIFEST: manifest})
    return out


def _table(ref: object, columns: Sequence[str]) -> "pa.Table | None":
    """The trace table `ref` names, or None when it is not a stored TraceTableRef (never materialized,
    not applicable) or its file is gone."""
    from rl_assets import store
    from rl_assets.ingest import read_traces

    if not isinstance(ref, TraceTableRef) or not store.exists(ref.path):
        return None
    return read_traces(ref.path, columns)


def _rollouts(stored: Mapping[str, Mapping[str, Any]]) -> "tuple[pd.DataFrame, str] | None":
    """The job's rollout table, from the latest checkpoint (by step) that ingested it."""
    ordered = sorted(stored.items(), key=lambda kv: training_step(kv[0], kv[1]["checkpoint"].get("rl_config"))[0] or -1)
    for _, values in reversed(ordered):
        ref = values.get("rl_traces")
        table = _table(ref, ROLLOUT_COLUMNS)
        if table is not None:
            return table.to_pandas(), ref.source
    return None


def build_run_lineage(analyses: Sequence[dg.AssetsDefinition]) -> dg.AssetsDefinition:
    """`run_lineage`, reading what every asset among `analyses` (the per-model analysis assets,
    ANALYSES) stored for each member checkpoint."""
    assets = stored_assets(analyses)

    @dg.asset(
        name=ASSET,
        partitions_def=rl_jobs_partitions,
        group_name="lineage",
        kinds={"python", "markdown", "matplotlib"},
        check_specs=[
            dg.AssetCheckSpec(name, asset=ASSET, partitions_def=rl_jobs_partitions, description=d)
            for name, d in CHECKS.items()
        ],
    )
    def run_lineage(
        context: dg.AssetExecutionContext,
        config: LineageConfig,
        settings: AnalysisSettings,
        io_manager: dg.ResourceParam[dg.IOManager],
    ):
        """What RL changed across the checkpoints of one training job, in step order, and when each change emerged."""
        job = context.partition_key
        try:
            validate_job_name(job)  # before any work: a bad job name fails here, not after the analysis
        except InvalidRepoId as exc:
            raise dg.Failure(description=f"run_lineage {job}: {exc}", allow_retries=False) from exc
        stored = job_checkpoints(context.instance, io_manager, job, assets)
        tables = {m: _table(v.get("post_rl_traces"), NEEDED) for m, v in stored.items()}
        result = build_lineage(
            job,
            stored,
            tables=tables,
            rollouts=_rollouts(stored),
            benchmark=config.benchmark or None,
            n_boot=settings.n_boot,
            seed=settings.seed,
        )
        lineage = lineage_result(result, found=len(stored))
        # Not stored as a value (lineage.json is the record): emit's Output does not apply here.
        report = lineage.report()
        written = write_lineage(job, report.files)
        yield dg.MaterializeResult(
            metadata={
                lineage.summary_key: dg.MetadataValue.md(report.summary),
                **file_metadata("report", written["lineage.md"]),
                **dagster_metadata(lineage.metadata()),
            }
        )
        for verdict in lineage.checks():
            yield check_result(verdict)

    return run_lineage
