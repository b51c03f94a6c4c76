"""`learning_audit` with no task family in either table: the enough_common_tasks check must not pass."""

import dagster as dg
import pyarrow.parquet as pq

from resources.llm import default_llm_resource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.audit import learning_audit
from rl_assets.schema import TRACE_SCHEMA

MODEL = "org/rg-rl-1B"


def _table_asset(name: str, ref: dict):
    @dg.asset(name=name, partitions_def=learning_audit.partitions_def)
    def _stub():
        return ref

    return _stub


def test_zero_families_fail_the_check(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    refs = {}
    for name in ("baseline_traces", "post_rl_traces"):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(TRACE_SCHEMA.empty_table(), path)
        refs[name] = {"path": str(path), "rows": 0, "source": str(tmp_path / name), "revision": "r1",
                      "benchmark": "reasoning_gym"}
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("models", [MODEL])
    result = dg.materialize(
        [_table_asset(n, r) for n, r in refs.items()] + [learning_audit],
        partition_key=MODEL, instance=instance,
        resources={"settings": AnalysisSettings(n_boot=100), "llm": default_llm_resource(),
                   "registry": RegistryResource(url=f"sqlite:///{tmp_path / 'registry.sqlite'}"),
                   "io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "io"))},
        run_config={"ops": {"learning_audit": {"config": {"predictions_path": "", "llm_audit": False}}}},
    )
    assert result.success
    (check,) = result.get_asset_check_evaluations()
    assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert check.description == "no task families to audit"
