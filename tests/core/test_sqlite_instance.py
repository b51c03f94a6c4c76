"""The embedded default's instance keeps its SQLite engines (rl_assets/support/sqlite_instance.py)
and still reads and writes exactly Dagster's files: what it stores, Dagster's own instance class
reads in another process, and the other way round; a fork, another thread and `wipe` are safe."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.dagster_run import DagsterRun

from rl_assets.support import sqlite_instance
from rl_assets.support.instance import DEFAULT_INSTANCE_YAML, ensure_instance_yaml

KEPT_BLOCK = "instance_class:\n  module: rl_assets.support.sqlite_instance\n  class: ReusedEngineInstance\n"


def _home(tmp_path: Path, kept: bool = True) -> Path:
    home = tmp_path / "dagster"
    path = ensure_instance_yaml(home)
    assert KEPT_BLOCK in path.read_text()
    if not kept:  # Dagster's own instance class on the same kind of home
        path.write_text(path.read_text().replace(KEPT_BLOCK, ""))
    return home


def _log(instance: dg.DagsterInstance, run_id: str, message: str) -> None:
    instance.handle_new_event(
        EventLogEntry(error_info=None, level=20, user_message=message, run_id=run_id, timestamp=time.time())
    )


def _messages(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    return [e.user_message for e in instance.all_logs(run_id)]


def _other_process(home: Path, code: str) -> str:
    """Run code in a fresh interpreter with `instance` open on home's files as Dagster's own
    DagsterInstance (home's dagster.yaml without the instance_class lines); its stdout."""
    plain = home.parent / "plain_config"
    plain.mkdir(exist_ok=True)
    (plain / "dagster.yaml").write_text((home / "dagster.yaml").read_text().replace(KEPT_BLOCK, ""))
    script = (
        "import dagster as dg\nfrom dagster._core.instance.ref import InstanceRef\n"
        f"instance = dg.DagsterInstance.from_ref(InstanceRef.from_dir({str(home)!r}, config_dir={str(plain)!r}))\n"
        "assert type(instance) is dg.DagsterInstance, type(instance)\n"
    ) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_default_instance_keeps_engines_on_dagsters_own_files(tmp_path):
    home = _home(tmp_path)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert type(instance) is sqlite_instance.ReusedEngineInstance
        assert type(instance.run_storage) is sqlite_instance.ReusedEngineRunStorage
        assert type(instance.event_log_storage) is sqlite_instance.ReusedEngineEventLogStorage
        assert type(instance.schedule_storage) is sqlite_instance.ReusedEngineScheduleStorage
        instance.add_run(DagsterRun(job_name="job", run_id="kept"))
        instance.add_dynamic_partitions("models", ["org/model"])
        for i in range(3):
            _log(instance, "kept", f"kept {i}")
        cache = instance.event_log_storage._engine_cache
        assert len(cache._engines) == 2  # the run's database and the index, each built once
        # Dagster's own class, in another process, while this one still holds its connections
        out = _other_process(
            home,
            """
            print(instance.get_run_by_id("kept").run_id, instance.get_dynamic_partitions("models"))
            print([e.user_message for e in instance.all_logs("kept")])
            """,
        )
        assert "kept ['org/model']" in out and "['kept 0', 'kept 1', 'kept 2']" in out
        # another process writes; this one, with its pooled connection, sees the commit
        _other_process(
            home,
            """
            import time
            from dagster._core.events.log import EventLogEntry
            instance.handle_new_event(EventLogEntry(error_info=None, level=20, user_message="from outside",
                                                    run_id="kept", timestamp=time.time()))
            """,
        )
        assert _messages(instance, "kept")[-1] == "from outside"


def test_history_written_by_dagsters_own_class_reads_the_same(tmp_path):
    home = _home(tmp_path, kept=False)
    with dg.DagsterInstance.from_config(str(home)) as plain:
        assert type(plain) is dg.DagsterInstance
        plain.add_run(DagsterRun(job_name="job", run_id="before"))
        _log(plain, "before", "written before the class existed")
    (home / "dagster.yaml").write_text(DEFAULT_INSTANCE_YAML)
    with dg.DagsterInstance.from_config(str(home)) as kept:
        assert type(kept) is sqlite_instance.ReusedEngineInstance
        assert kept.get_run_by_id("before") is not None
        assert _messages(kept, "before") == ["written before the class existed"]


def test_other_threads_share_the_kept_connection(tmp_path):
    with dg.DagsterInstance.from_config(str(_home(tmp_path))) as instance:
        instance.add_run(DagsterRun(job_name="job", run_id="threads"))
        _log(instance, "threads", "main thread")  # the pooled connection is made here
        errors: list[BaseException] = []

        def write(i: int) -> None:
            try:
                _log(instance, "threads", f"thread {i}")
                instance.get_run_by_id("threads")
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread's assert
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert sorted(_messages(instance, "threads")) == ["main thread"] + [f"thread {i}" for i in range(4)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_a_forked_child_builds_its_own_engines(tmp_path):
    with dg.DagsterInstance.from_config(str(_home(tmp_path))) as instance:
        instance.add_run(DagsterRun(job_name="job", run_id="fork"))
        _log(instance, "fork", "parent")
        cache = instance.event_log_storage._engine_cache
        parent_engines = dict(cache._engines)
        pid = os.fork()
        if pid == 0:  # child: never return into pytest
            code = 1
            try:
                _log(instance, "fork", "child")
                fresh = all(cache._engines[k] is not parent_engines[k] for k in cache._engines)
                code = 0 if fresh and cache._engines else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert all(cache._engines[k] is parent_engines[k] for k in parent_engines)  # the parent's are untouched
        _log(instance, "fork", "parent again")
        assert _messages(instance, "fork") == ["parent", "child", "parent again"]


def test_wipe_closes_the_connections_to_the_databases_it_deletes(tmp_path):
    home = _home(tmp_path)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.add_run(DagsterRun(job_name="job", run_id="wiped"))
        _log(instance, "wiped", "old")
        instance.event_log_storage.wipe()
        assert not (home / "history" / "runs" / "wiped.db").exists()
        _log(instance, "wiped", "new")  # written to a new file, not the deleted one
        assert (home / "history" / "runs" / "wiped.db").exists()
        assert _messages(instance, "wiped") == ["new"]
    out = _other_process(home, 'print([e.user_message for e in instance.all_logs("wiped")])')
    assert "['new']" in out


def test_only_the_most_recent_engines_are_kept(monkeypatch, tmp_path):
    monkeypatch.setattr(sqlite_instance, "MAX_ENGINES", 2)
    cache = sqlite_instance.EngineCache()
    urls = [f"sqlite:///{tmp_path / name}.db" for name in ("a", "b", "c")]
    first, built = cache.get(urls[0])
    assert built and cache.get(urls[0]) == (first, False)
    cache.get(urls[1])
    cache.get(urls[2])
    assert list(cache._engines) == urls[1:]
    assert cache.get(urls[0])[1]  # evicted: built again


def test_storages_that_are_not_dagsters_sqlite_ones_pass_through():
    other = object()
    assert sqlite_instance.reusing_engines(other) is other
    assert sqlite_instance.reusing_engines(None) is None


def test_concurrent_run_processes_lose_no_event(tmp_path):
    """Four processes (as four concurrent runs under the daemon) each store asset materializations,
    which go to their run's database and the shared index, while this process holds its pooled
    connections and reads: every event arrives, none fails on a lock."""
    home = _home(tmp_path)
    code = """
import sys, time
import dagster as dg
from dagster._core.events import DagsterEvent, DagsterEventType, StepMaterializationData
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.dagster_run import DagsterRun
run_id, n = sys.argv[2], int(sys.argv[3])
instance = dg.DagsterInstance.from_config(sys.argv[1])
assert type(instance).__name__ == "ReusedEngineInstance"
instance.add_run(DagsterRun(job_name="job", run_id=run_id))
for i in range(n):
    event = DagsterEvent(
        DagsterEventType.ASSET_MATERIALIZATION.value, "job",
        event_specific_data=StepMaterializationData(
            dg.AssetMaterialization(asset_key=f"a_{run_id}", metadata={"i": i})
        ),
    )
    instance.handle_new_event(EventLogEntry(error_info=None, level=20, user_message="", run_id=run_id,
                                            timestamp=time.time(), dagster_event=event))
"""
    with dg.DagsterInstance.from_config(str(home)) as instance:
        instance.add_run(DagsterRun(job_name="job", run_id="reader"))
        _log(instance, "reader", "holding connections")
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(home), f"run{k}", "40"], stderr=subprocess.PIPE, text=True
            )
            for k in range(4)
        ]
        while any(p.poll() is None for p in procs):  # read the index while they write
            instance.get_latest_materialization_events([dg.AssetKey(f"a_run{k}") for k in range(4)])
            time.sleep(0.05)
        for p in procs:
            assert p.wait() == 0, p.stderr.read() if p.stderr else ""
        for k in range(4):
            records = instance.fetch_materializations(dg.AssetKey(f"a_run{k}"), limit=100).records
            assert len(records) == 40
            assert len(instance.all_logs(f"run{k}")) == 40
