"""Typed hand-over values through the IO manager (rl_assets/values/handover.py): stored with a type
tag, loaded back as their kind; values an older rldelta stored as plain dicts still load; an
unknown tag or a value of the wrong kind is an error naming the file."""

import json

import dagster as dg
import pytest

from resources.io_manager import RlDeltaIOManager
from rl_assets import store
from rl_assets.partitions import slug
from rl_assets.values.handover import (
    FailureModeTableRef,
    NotApplicable,
    StepTableRef,
    TraceTableRef,
    TrainingLogsRef,
    UnknownHandover,
    decode,
)

MODEL = "org/m-8B"


def _store(asset: str, value, run_id: str = "r1") -> None:
    RlDeltaIOManager().handle_output(
        dg.build_output_context(asset_key=dg.AssetKey(asset), partition_key=MODEL, run_id=run_id), value
    )


def _load(asset: str, dagster_type=None):
    context = dg.build_input_context(asset_key=dg.AssetKey(asset), partition_key=MODEL, dagster_type=dagster_type)
    return RlDeltaIOManager().load_input(context)


def _stored_file(asset: str, run_id: str = "r1"):
    return store.root() / asset / slug(MODEL) / f"{run_id}.json"


def _write_old_style(asset: str, value: dict, run_id: str = "old") -> None:
    """What an rldelta before the tags left on disk: the plain dict, and the LATEST pointer."""
    folder = store.root() / asset / slug(MODEL)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{run_id}.json").write_text(json.dumps(value, indent=2, sort_keys=True))
    (folder / "LATEST").write_text(f"{run_id}.json")


def test_each_kind_round_trips_with_its_tag(rldelta_home):
    table = str(store.trace_table_folder("baseline_traces", MODEL) / "t.parquet")
    values = {
        "baseline_traces": TraceTableRef(path=table, rows=3, source="local/x", revision="abc", accounting={"rows": 3}),
        "training_logs": TrainingLogsRef(repo_id=MODEL, revision="r", training_logs_revision="l", files=["a.log"]),
        "training_metrics": StepTableRef(
            steps_table=str(store.step_table(MODEL, "r1")), n_steps=4, curves={"step": [1]}
        ),
        "rl_traces": NotApplicable(repo_id=MODEL, reason="no RL rollout dataset"),
        "failure_modes": FailureModeTableRef(
            path=str(store.failure_mode_folder(MODEL) / "r1.parquet"), rows=2, annotator="m", shift={"loop": 0.5}
        ),
    }
    for asset, value in values.items():
        _store(asset, value)
        assert json.loads(_stored_file(asset).read_text())["__type__"] == type(value).__name__
        loaded = _load(asset)
        assert loaded == value and type(loaded) is type(value), asset


def test_an_old_plain_dict_loads_as_the_kind_whose_fields_it_holds(rldelta_home):
    old_ref = {"applicable": True, "path": "p", "rows": 2, "source": "s", "repo_id": MODEL, "data_version": "d"}
    assert decode(old_ref) == TraceTableRef(path="p", rows=2, source="s", repo_id=MODEL, data_version="d")
    assert decode({"applicable": False, "repo_id": MODEL, "reason": "none"}) == NotApplicable(MODEL, "none")
    # a summary with other fields, or one kind's fields claiming the other `applicable`, stays a dict
    assert decode({"applicable": False, "reason": "no steps"}) == {"applicable": False, "reason": "no steps"}
    assert isinstance(decode({"applicable": False, "path": "p", "rows": 2, "source": "s"}), dict)
    assert isinstance(decode({"path": "p", "rows": 2, "source": "s", "verdict": "healthy"}), dict)


def _failure_modes_input():
    """The type behavioral_delta's `failure_modes` input declares (inferred from its annotation)."""
    from rl_assets.assets.q1_behavioral_delta import behavioral_delta

    return behavioral_delta.op.input_def_named("failure_modes").dagster_type


def test_an_old_failure_modes_dict_loads_as_its_table_reference(rldelta_home):
    table = str(store.failure_mode_folder(MODEL) / "old.parquet")
    counts = {"baseline": {"loop": 1}, "post_rl": {"loop": 0}}
    old = {  # every key the failure_modes asset stored before its value was typed
        **{"path": table, "rows": 2, "annotator": "gpt", "prompt_version": "v3", "failed": 0},
        **{"coverage": {"baseline": 1.0, "post_rl": 1.0}, "counts": counts, "shares": {}, "shift": {"loop": -1.0}},
        **{"write_back_preflight": [], "calls": {"calls": 1}, "call_failures": {"failed": 0, "requested": 2}},
    }
    _write_old_style("failure_modes", old)
    loaded = _load("failure_modes", _failure_modes_input())
    assert loaded == FailureModeTableRef(**old) and loaded.counts["baseline"]["loop"] == 1


def test_an_old_failure_modes_value_of_another_shape_is_refused_with_the_file(rldelta_home):
    _write_old_style("failure_modes", {"path": None, "annotator": "offline", "skipped": "no post-RL traces"})
    with pytest.raises(TypeError, match=r"old\.json of failure_modes is not a FailureModeTableRef"):
        _load("failure_modes", _failure_modes_input())


def test_an_unknown_tag_is_an_error_naming_the_file(rldelta_home):
    _write_old_style("baseline_traces", {"__type__": "TraceTableRefV9", "path": "p"})
    with pytest.raises(UnknownHandover, match=r"old\.json: unknown hand-over type 'TraceTableRefV9'"):
        _load("baseline_traces")


def test_a_tagged_value_missing_a_field_is_an_error_naming_the_file(rldelta_home):
    _write_old_style("baseline_traces", {"__type__": "TraceTableRef", "path": "p", "source": "s"})
    with pytest.raises(UnknownHandover, match=r"old\.json: a TraceTableRef needs"):
        _load("baseline_traces")


def test_a_value_of_another_kind_than_the_input_declares_is_refused_with_the_file(rldelta_home):
    _write_old_style("training_metrics", {"applicable": True, "metrics_path": "/elsewhere/metrics.parquet"})
    with pytest.raises(TypeError, match=r"old\.json of training_metrics is not a StepTableRef"):
        _load("training_metrics", dg.DagsterType(lambda _, v: True, name="S", typing_type=StepTableRef))


def test_a_location_outside_the_storage_root_is_refused(rldelta_home, tmp_path):
    _store("baseline_traces", TraceTableRef(path=str(tmp_path / "elsewhere.parquet"), rows=1, source="s"))
    with pytest.raises(Exception, match="outside"):
        _load("baseline_traces")


def test_a_downstream_asset_materializes_from_trace_references_an_older_rldelta_stored(rldelta_home, tmp_path):
    """Plain-dict references already on a user's disk: q4 reads them as TraceTableRefs and runs."""
    from resources.settings_resource import AnalysisSettings
    from rl_assets.assets.q4_solve_rate import solve_rate_by_context_asset
    from rl_assets.partitions import models_partitions
    from rl_assets.support.trace_tables import ingest_once
    from support.dagster_run import partition_instance

    for asset, passed in (("baseline_traces", "0.0"), ("post_rl_traces", "1.0")):
        src = tmp_path / f"{asset}.jsonl"
        src.write_text(
            "".join(
                json.dumps({"conversations": [], "task": f"t{i}", "trial_name": f"t{i}__a", "result": passed}) + "\n"
                for i in range(4)
            )
        )
        built = ingest_once(None, str(src), store.trace_table_folder(asset, MODEL) / "t.parquet")
        old = {k: built[k] for k in ("path", "rows", "rows_read", "skipped", "source_kind", "revision")}
        _write_old_style(asset, {**old, "source": str(src), "side": asset, "benchmark": None, "max_rows": None})

    result = dg.materialize(
        # the trace references are the old values on disk, not materialized here
        [dg.AssetSpec(a, partitions_def=models_partitions) for a in ("baseline_traces", "post_rl_traces")]
        + [solve_rate_by_context_asset],
        partition_key=MODEL,
        instance=partition_instance(MODEL, tempdir=str(tmp_path / "dagster")),
        resources={"settings": AnalysisSettings(n_boot=50), "io_manager": RlDeltaIOManager()},
    )
    assert result.success
    out = result.output_for_node(solve_rate_by_context_asset.op.name)
    assert out  # the analysis ran on both tables


def test_an_input_of_two_kinds_refuses_a_stored_value_of_a_third_with_the_file(rldelta_home):
    """rl_temporal's training_metrics input (support/handover_types.TRAINING_METRICS) takes a StepTableRef
    or a NotApplicable: a stored trace reference is refused before the asset runs, naming the file."""
    from rl_assets.support.handover_types import TRAINING_METRICS

    ref = TraceTableRef(path=str(store.trace_table_folder("rl_traces", MODEL) / "t.parquet"), rows=1, source="s")
    assert TRAINING_METRICS.type_check(None, NotApplicable(MODEL, "no logs")).success
    assert not TRAINING_METRICS.type_check(None, ref).success
    _store("training_metrics", ref, run_id="old")
    with pytest.raises(TypeError, match=r"old\.json of training_metrics is not a StepTableRef or NotApplicable"):
        _load("training_metrics", TRAINING_METRICS)
