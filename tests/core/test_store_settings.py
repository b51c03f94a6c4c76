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


def test_settings_resolve_a_relative_storage_root_when_read(rldelta_home, monkeypatch, tmp_path):
    """Every reader of the setting - not only the store - sees one absolute root: a relative one is resolved
    against the working directory when first read and recorded for the processes started from here."""
    import os

    from rl_assets import settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RLDELTA_STORAGE", "relative/store")
    assert settings.storage_root() == str(tmp_path / "relative" / "store") == os.environ["RLDELTA_STORAGE"]
    monkeypatch.setenv("RLDELTA_STORAGE", "s3://bucket/prefix")  # a URL is never taken for a path
    assert settings.storage_root() == "s3://bucket/prefix"


@dg.asset
def checkpoint():
    return {"job_name": "job-a"}


def test_readers_outside_a_run_find_a_value_where_the_event_log_says_or_fail_loudly(
    rldelta_home, monkeypatch, tmp_path
):
    """The lineage sensor and run_lineage read stored values outside a run. With a relative RLDELTA_STORAGE
    met from another working directory they looked under another root and got a silent None; they now
    follow the event log's stored_at, and a value outside the root they see is an error naming both."""
    from resources.io_manager import load_stored

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    monkeypatch.setenv("RLDELTA_STORAGE", "store")
    io = RlDeltaIOManager()
    with dg.instance_for_test() as instance:
        assert dg.materialize([checkpoint], resources={"io_manager": io}, instance=instance).success
        assert load_stored(io, "checkpoint", None, instance=instance) == {"job_name": "job-a"}
        # the sensor's process: started with the user's relative setting, in another working directory
        monkeypatch.setenv("RLDELTA_STORAGE", "store")
        monkeypatch.chdir(tmp_path / "b")
        with pytest.raises(store.StoreError, match="outside the storage root"):
            load_stored(io, "checkpoint", None, instance=instance)


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
