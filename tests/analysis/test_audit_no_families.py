"""`learning_audit` with no task family in either table: its checks must not pass."""

import dagster as dg
import pyarrow.parquet as pq

from rl_assets.schema import trace_schema
from support.audit_materialize import checks_by_name, materialize_audit

MODEL = "org/rg-rl-1B"


def test_zero_families_fail_the_checks(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    refs = {}
    for name in ("baseline_traces", "post_rl_traces"):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(trace_schema().empty_table(), path)
        refs[name] = {
            "path": str(path),
            "rows": 0,
            "source": str(tmp_path / name),
            "revision": "r1",
            "benchmark": "reasoning_gym",
        }
    result = materialize_audit(MODEL, refs, tmp_path, n_boot=100)
    assert result.success
    checks = checks_by_name(result)
    assert set(checks) == {"enough_common_tasks", "rulers_agree", "task_ids_pair", "same_generation_settings"}
    # two empty tables: no near-miss id and no setting differs (those checks judge the pairing only)
    assert checks["task_ids_pair"].passed and checks["same_generation_settings"].passed
    for check in (
        checks["enough_common_tasks"],
        checks["rulers_agree"],
    ):  # nothing audited is neither enough data nor agreeing rulers
        assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
        assert check.description == "no task families to audit"
