"""Materialize `learning_audit` alone on two given trace tables (helper for the audit asset tests).

The upstream trace assets are stubs that return the given refs, so only the audit runs; every
resource is the real one pointed at tmp_path.
"""

from __future__ import annotations

import dagster as dg

from resources.llm import default_llm_resource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.audit import learning_audit
from support.dagster_run import materialize_partition
from support.handover_refs import trace_ref


def materialize_audit(
    model: str, refs: dict, tmp_path, *, predictions_path: str = "", n_boot: int = 300, registry_url: str | None = None
):
    """refs: {"baseline_traces": fields, "post_rl_traces": fields}, each side's TraceTableRef fields
    (`rows` read from the table when left out); returns the ExecuteInProcessResult."""
    return materialize_partition(
        [learning_audit],
        model,
        stubs={name: trace_ref(**fields) for name, fields in refs.items()},
        resources={
            "settings": AnalysisSettings(n_boot=n_boot),
            "llm": default_llm_resource(),
            "registry": RegistryResource(url=registry_url or f"sqlite:///{tmp_path / 'registry.sqlite'}"),
            "io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "io")),
        },
        run_config={"ops": {"learning_audit": {"config": {"predictions_path": predictions_path, "llm_audit": False}}}},
    )


def checks_by_name(result) -> dict:
    return {c.check_name: c for c in result.get_asset_check_evaluations()}
