"""Materialize `behavioral_delta` and `solve_rate_by_context` for one model partition."""

import json

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from resources.io_manager import RlDeltaIOManager
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.q1_behavioral_delta import behavioral_delta
from rl_assets.assets.q4_solve_rate import solve_rate_by_context_asset
from rl_assets.partitions import models_partitions
from rl_assets.schema import trace_schema
from rl_assets.settings import home_dir
from rl_assets.values.handover import FailureModeTableRef, TraceTableRef
from support.dagster_run import materialize_partition, partition_instance
from support.q1_synth import make_side  # tests/ is on sys.path (rootdir import mode)

MODEL = "rldelta-test/rl-model-8B"


def _stub(name, df):
    @dg.asset(name=name, partitions_def=models_partitions)
    def _asset(context) -> TraceTableRef:
        table = pa.Table.from_pandas(df.assign(n_tokens=5000, peak_prompt_tokens=None), preserve_index=False)
        full = pa.table(
            {
                f.name: table[f.name] if f.name in table.column_names else pa.nulls(len(table), f.type)
                for f in trace_schema()
            }
        ).cast(trace_schema())
        (home_dir() / "storage").mkdir(exist_ok=True)  # in the store root: values name no other place
        path = str(home_dir() / "storage" / f"{name}.parquet")
        pq.write_table(full, path)
        return TraceTableRef(path=path, rows=len(df), source=f"local/{name}", revision="abc123")

    return _asset


def _labels_table(path, trace_ids=(), modes=(), statuses=()) -> str:
    """A failure_modes annotation table with the columns behavioral_delta reads."""
    columns = {"trace_id": list(trace_ids), "failure_mode": list(modes), "status": list(statuses)}
    pq.write_table(pa.table({k: pa.array(v, pa.string()) for k, v in columns.items()}), path)
    return str(path)


@dg.asset(name="failure_modes", partitions_def=models_partitions)
def _no_failure_modes(context) -> FailureModeTableRef:
    """An annotation that labelled nothing: the traces keep their own failure modes."""
    (home_dir() / "storage").mkdir(exist_ok=True)
    return FailureModeTableRef(path=_labels_table(home_dir() / "storage" / "labels.parquet"), rows=0, annotator="none")


def _run(tmp_path, monkeypatch, before, after):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path))
    monkeypatch.setenv("RLDELTA_STORAGE", str(tmp_path / "storage"))
    return materialize_partition(
        [
            _stub("baseline_traces", before),
            _stub("post_rl_traces", after),
            _no_failure_modes,
            behavioral_delta,
            solve_rate_by_context_asset,
        ],
        MODEL,
        instance=partition_instance(MODEL, tempdir=str(tmp_path / "dagster")),
        resources={"settings": AnalysisSettings(n_boot=300), "io_manager": RlDeltaIOManager()},
    )


def _checks(result):
    return {(e.asset_key.to_user_string(), e.check_name): e.passed for e in result.get_asset_check_evaluations()}


def test_reports_written_and_checks_pass(tmp_path, monkeypatch):
    result = _run(tmp_path, monkeypatch, make_side(1), make_side(2, tool_error_shift=-1.5))
    assert result.success
    q1 = tmp_path / "reports" / "rldelta-test--rl-model-8B" / "Q1_behavioral_delta"
    md = (q1 / "report.md").read_text()
    assert md.index("## Summary") < md.index("## Macro metrics") < md.index("## Behavioural features")
    assert "**tool_errors** decreased" in md
    data = json.loads((q1 / "report.json").read_text())
    assert data["common_tasks"] == 60 and data["sources"]["baseline"]["revision"] == "abc123"
    q4 = tmp_path / "reports" / "rldelta-test--rl-model-8B" / "Q4_solve_rate_by_context"
    assert (q4 / "solve_rate.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((q4 / "solve_rate.json").read_text())["before"]["length_source"] == "n_tokens"
    value = result.output_for_node("behavioral_delta")
    assert value["features"] and value == data
    checks = _checks(result)
    assert checks == {
        ("behavioral_delta", "has_common_tasks"): True,
        ("behavioral_delta", "enough_data"): True,
        ("behavioral_delta", "task_ids_pair"): True,
        ("behavioral_delta", "same_generation_settings"): True,
        ("solve_rate_by_context", "enough_data"): True,
    }
    assert "## Task pairing" in md and "| bench-a | 60 | 0 | 0 | 60 by task_id | paired |" in md
    md_meta = result.asset_materializations_for_node("behavioral_delta")[0].metadata
    assert md_meta["n_significant_features"].value == 1 and md_meta["common_tasks"].value == 60


def test_zero_common_tasks_fails_the_check(tmp_path, monkeypatch):
    result = _run(tmp_path, monkeypatch, make_side(1, n_tasks=10), make_side(2, n_tasks=10, prefix="other"))
    assert result.success  # the report still says why; the check is what fails
    checks = _checks(result)
    assert checks[("behavioral_delta", "has_common_tasks")] is False
    assert checks[("behavioral_delta", "enough_data")] is False
    report = (tmp_path / "reports" / "rldelta-test--rl-model-8B" / "Q1_behavioral_delta" / "report.md").read_text()
    assert "Invalid for comparison" in report


def test_failure_mode_labels_join_on_trace_id(tmp_path):
    from rl_assets.assets.q1_behavioral_delta import failure_mode_labels, with_failure_modes

    path = _labels_table(tmp_path / "labels.parquet", "abc", ["timeout", "loop", "other"], ["ok", "offline", "failed"])
    labels = failure_mode_labels(FailureModeTableRef(path=path, rows=3, annotator="test"))
    assert labels == {"a": "timeout", "b": "loop"}  # a failed annotation is not a label
    table = pa.table({"trace_id": ["a", "c", "z"], "failure_mode": pa.array([None, "kept", None], pa.string())})
    assert with_failure_modes(table, labels).column("failure_mode").to_pylist() == ["timeout", "kept", None]


def test_a_failure_modes_table_that_is_gone_fails_instead_of_dropping_the_labels(tmp_path):
    """A value naming a table that no longer exists (cleaned home, another machine's disk) is an error,
    not "no labels": Q1 would otherwise name an annotator whose labels it never applied."""
    from rl_assets.assets.q1_behavioral_delta import failure_mode_labels

    with pytest.raises(dg.Failure, match="re-materialize failure_modes"):
        failure_mode_labels(FailureModeTableRef(path=str(tmp_path / "gone.parquet"), rows=2, annotator="offline"))
    empty = FailureModeTableRef(path=_labels_table(tmp_path / "empty.parquet"), rows=0, annotator="offline")
    assert failure_mode_labels(empty) == {}  # an annotation of zero rows labels nothing
