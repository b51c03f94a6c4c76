"""Store settings that cannot be honoured are refused, and report folders are written as a whole
(issue 25 item 15)."""

import dagster as dg
import pytest

from resources.io_manager import RlDeltaIOManager
from rl_assets import store
from rl_assets.support.report_files import model_report_files, report_folder, write_report


def test_a_relative_storage_root_is_resolved_once_and_recorded(rldelta_home, monkeypatch, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    monkeypatch.setenv("RLDELTA_STORAGE", "shared")
    first = str(store.root())
    monkeypatch.chdir(tmp_path / "b")  # a step in another working directory sees the same root
    assert str(store.root()) == first == str(tmp_path / "a" / "shared")
    import os

    assert os.environ["RLDELTA_STORAGE"] == first  # recorded for every process started from here


def test_a_storage_root_inside_the_reports_folder_is_refused(rldelta_home, monkeypatch, tmp_path):
    monkeypatch.setenv("RLDELTA_REPORTS", str(tmp_path / "reports"))
    monkeypatch.setenv("RLDELTA_STORAGE", str(tmp_path / "reports" / "store"))
    with pytest.raises(store.StoreError, match="inside the reports folder"):
        store.root()


@dg.asset
def small_value():
    return {"n": 1}


def test_memory_storage_only_where_the_runs_hand_overs_live_in_one_process(rldelta_home, monkeypatch, tmp_path):
    monkeypatch.setenv("RLDELTA_STORAGE", "memory://rldelta-settings-test")
    io = {"io_manager": RlDeltaIOManager()}
    assert dg.materialize([small_value], resources=io).success  # ephemeral instance, one process: honoured
    with dg.instance_for_test() as persistent:  # a DAGSTER_HOME-like instance: it outlives the process
        result = dg.materialize([small_value], resources=io, instance=persistent, raise_on_error=False)
    assert not result.success
    (failure,) = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
    assert "keeps hand-overs in one process's memory" in failure.event_specific_data.error.to_string()


def test_a_report_write_that_fails_midway_leaves_the_previous_folder_intact(rldelta_home):
    write_report("org/m-8B", "Q9_test", {"report.md": "old report", "data.json": "{}"})
    with pytest.raises(TypeError):
        write_report("org/m-8B", "Q9_test", {"report.md": "NEW report", "plot.png": object()})
    folder = report_folder("org/m-8B", "Q9_test")
    assert (folder / "report.md").read_text() == "old report" and not (folder / "plot.png").exists()
    assert sorted(p.name for p in folder.parent.iterdir()) == ["Q9_test"]  # no staging folder left behind
    write_report("org/m-8B", "Q9_test", {"report.md": "new report"})  # a whole write: new files, earlier ones kept
    assert (folder / "report.md").read_text() == "new report" and (folder / "data.json").exists()
    assert model_report_files("org/m-8B") == ["Q9_test/data.json", "Q9_test/report.md"]
