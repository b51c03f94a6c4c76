"""The embedded default's Dagster instance: Dagster's own, whose SQLite storages keep one SQLAlchemy
engine, with one open connection, per database file instead of building both for every use.

Why: Dagster's SQLite run, event-log and schedule storages build an engine for every connection
(NullPool) and drop it after. So every stored event, dynamic-partition lookup and run update compiled
its SQL anew, redid the dialect's first-connect set-up, and on closing the last connection to the
WAL database checkpointed it to disk. A Q1 run on 12 rows stores ~90 events (each asset event twice:
its run's database and the index), and an event cost ~4 ms of CPU instead of ~1 ms
(bench/RESULTS.md, "A lighter run").

What stays Dagster's: the files (the base folders are Dagster's defaults under DAGSTER_HOME, so an
instance written before this class existed reads the same history), the tables, WAL mode, the
busy timeout, every commit (one transaction per use, as before), and Dagster's lock around the event
log's connections. An idle pooled connection holds no transaction, so the webserver, the daemon and
run workers in other processes read and write as before. A process that forks gets fresh engines
(a SQLite connection must not cross a fork), and `wipe`, which deletes the run databases, first
closes the connections to them.

dagster.yaml names this class (`instance_class`, rl_assets/support/instance.py). Storages other than
Dagster's SQLite ones (PostgreSQL in production) pass through untouched.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from dagster import DagsterInstance
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.runs.sqlite.sqlite_run_storage import SqliteRunStorage
from dagster._core.storage.schedules.sqlite.sqlite_schedule_storage import SqliteScheduleStorage
from dagster._core.storage.sql import create_engine
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool

# The event log has one database per run plus an index; a long-lived webserver or daemon reads many
# runs, so only the most recently used engines (and their open connections) are kept.
MAX_ENGINES = 32
# One connection kept per database; a second concurrent user (run storage has no lock of its own)
# gets a connection that is closed when returned.
POOL = {"poolclass": QueuePool, "pool_size": 1, "max_overflow": 8}


class EngineCache:
    """Engines by connection string, most recently used last; safe across threads."""

    def __init__(self, connect_args: Mapping[str, Any] | None = None) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._lock = threading.Lock()
        self._pid = os.getpid()
        # A pooled connection is handed to one user at a time, from whichever thread asks.
        self._connect_args = {**(connect_args or {}), "check_same_thread": False}

    def get(self, conn_string: str) -> tuple[Engine, bool]:
        """The engine for conn_string and whether it was just built."""
        with self._lock:
            if os.getpid() != self._pid:  # forked: the parent's connections stay the parent's
                self._engines = OrderedDict()
                self._pid = os.getpid()
            engine = self._engines.get(conn_string)
            if engine is not None:
                self._engines.move_to_end(conn_string)
                return engine, False
            engine = create_engine(conn_string, connect_args=self._connect_args, **POOL)
            self._engines[conn_string] = engine
            while len(self._engines) > MAX_ENGINES:
                _, old = self._engines.popitem(last=False)
                old.dispose()
            return engine, True

    def dispose(self) -> None:
        with self._lock:
            if os.getpid() == self._pid:
                for engine in self._engines.values():
                    engine.dispose()
            self._engines.clear()


@contextmanager
def _transaction(engine: Engine) -> Iterator[Connection]:
    """One connection in one transaction, as Dagster's SQLite storages give their callers."""
    with engine.connect() as conn, conn.begin():
        yield conn


class KeptEngineConnect:
    """connect() for Dagster's run and schedule storages (one database each, named by
    `_conn_string`) through a kept engine."""

    _conn_string: str

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._engine_cache = EngineCache()

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        engine, _ = self._engine_cache.get(self._conn_string)
        with _transaction(engine) as conn:
            yield conn

    def dispose(self) -> None:
        super().dispose()  # type: ignore[misc]  # the storage class it is mixed into has one
        self._engine_cache.dispose()


class ReusedEngineRunStorage(KeptEngineConnect, SqliteRunStorage):
    pass


class ReusedEngineScheduleStorage(KeptEngineConnect, SqliteScheduleStorage):
    pass


class ReusedEngineEventLogStorage(SqliteEventLogStorage):
    def __init__(self, base_dir: str, inst_data: Any = None) -> None:
        super().__init__(base_dir, inst_data)
        self._engine_cache = EngineCache({"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        # Dagster serialises a storage's connections with _db_lock, and creates a shard's tables
        # (one database per run) the first time the shard is used in this process.
        with self._db_lock:
            engine, _ = self._engine_cache.get(self.conn_string_for_shard(shard))
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with _transaction(engine) as conn:
                yield conn

    def wipe(self) -> None:
        self._engine_cache.dispose()  # no connection may stay on a run database wipe deletes
        super().wipe()

    def dispose(self) -> None:
        super().dispose()
        self._engine_cache.dispose()


def reusing_engines(storage: Any) -> Any:
    """The same storage with kept engines when it is exactly one of Dagster's SQLite storages, else
    the storage itself. Built from the storage's own location and config data: no migration check
    runs twice (Dagster's from_local already ran it)."""
    if type(storage) is SqliteRunStorage:
        return ReusedEngineRunStorage(storage._conn_string, storage.inst_data)
    if type(storage) is SqliteScheduleStorage:
        return ReusedEngineScheduleStorage(storage._conn_string, storage.inst_data)
    if type(storage) is SqliteEventLogStorage:
        return ReusedEngineEventLogStorage(storage._base_dir, storage.inst_data)
    return storage


class ReusedEngineInstance(DagsterInstance):
    """DagsterInstance whose SQLite storages keep their engines (see the module docstring)."""

    @classmethod
    def config_schema(cls) -> dict[str, Any]:
        return {}  # no settings of its own: every dagster.yaml key keeps Dagster's meaning

    @staticmethod
    def config_defaults(base_dir: str) -> Mapping[str, Any]:
        return InstanceRef.config_defaults(base_dir)

    def __init__(self, **kwargs: Any) -> None:
        # Dagster's factory builds the storages from dagster.yaml and passes them by keyword.
        for name in ("run_storage", "event_storage", "schedule_storage"):
            kwargs[name] = reusing_engines(kwargs.get(name))
        super().__init__(**kwargs)
