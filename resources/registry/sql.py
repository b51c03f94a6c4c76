"""`SqlRegistry`: the registry tables in a SQL database through SQLAlchemy (SQLite file in the home
folder; PostgreSQL by URL), the embedded default of the `registry` resource.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from datetime import UTC, datetime

from resources.registry.types import RegistryQueries, metadata, tables

# sqlalchemy: imported where used, so loading the definitions stays light (test_import_cost.py)

# PostgreSQL advisory lock key of rldelta's registry writes (any constant; this one reads "rldelta" in hex)
PG_LOCK_KEY = 0x726C64656C7461


def _as_utc(value):
    # SQLite hands timestamps back naive; they were written as UTC, so say so.
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _utc_values(values: dict) -> dict:
    """A row to write, its aware times converted to UTC (naive ones are taken as UTC already)."""
    return {k: v.astimezone(UTC) if isinstance(v, datetime) and v.tzinfo else v for k, v in values.items()}


def _row(mapping) -> dict:
    return {k: _as_utc(v) for k, v in dict(mapping).items()}


class SqlRegistry(RegistryQueries):
    """The registry tables in any SQLAlchemy database (SQLite by default, PostgreSQL by URL)."""

    def __init__(self, url: str):
        import sqlalchemy as sa

        self.url = url
        # SQLAlchemy 2.1 maps a bare postgresql:// to psycopg 3; the driver we ship is psycopg2.
        driver_url = "postgresql+psycopg2://" + url[len("postgresql://") :] if url.startswith("postgresql://") else url
        # SQLite: wait up to 30 s for another writer's lock (the driver's default is 5 s)
        connect_args = {"timeout": 30} if driver_url.startswith("sqlite") else {}
        self.engine = sa.create_engine(driver_url, future=True, pool_pre_ping=True, connect_args=connect_args)
        self._local = threading.local()  # .conn: the connection of this thread's `locked()` block, if any

    def create_all(self) -> None:
        """The tables, created where missing - under the write lock: two processes creating them at once
        raced (PostgreSQL: a duplicate pg_type row, an IntegrityError; SQLite: "table already exists").
        A registry that has them all is only read (a reader needs no write lock, nor write access)."""
        import sqlalchemy as sa

        if set(tables()) <= set(sa.inspect(self.engine).get_table_names()):
            return
        with self.locked() as conn:
            metadata().create_all(conn)

    @contextmanager
    def locked(self):
        """One transaction holding the registry's write lock, for a read-then-write that must not race another
        process (register-eval: "is this model known? else insert it"). Reads and writes of this registry
        inside the block go through it. PostgreSQL: a transaction-scoped advisory lock; SQLite: BEGIN
        IMMEDIATE (the database's write lock); other databases: a plain transaction. Re-entrant."""
        if getattr(self._local, "conn", None) is not None:
            yield self._local.conn
            return
        import sqlalchemy as sa

        dialect = self.engine.dialect.name
        with self.engine.connect() as conn:
            if dialect == "sqlite":
                # pysqlite opens transactions lazily and never as IMMEDIATE: begin it by hand, driver in autocommit
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                self._local.conn = conn
                try:
                    yield conn
                    conn.exec_driver_sql("COMMIT")
                except BaseException:
                    conn.exec_driver_sql("ROLLBACK")
                    raise
                finally:
                    self._local.conn = None
                return
            with conn.begin():
                if dialect == "postgresql":
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})
                self._local.conn = conn
                try:
                    yield conn
                finally:
                    self._local.conn = None

    @contextmanager
    def _transaction(self):
        """The `locked()` block's connection, else a transaction of its own."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
        else:
            with self.engine.begin() as conn:
                yield conn

    def insert(self, table: str, rows: list[dict]) -> None:
        self.write({table: rows})

    def write(self, inserts: dict[str, list[dict]], updates: dict[str, dict[str, dict]] | None = None) -> None:
        """Insert rows ({table: rows}) and update rows ({table: {id: values}}) in ONE transaction: a
        write that fails part-way leaves no row behind. Aware times are stored as UTC (SQLite keeps
        no offset: 12:00+05:00 would come back as 12:00 UTC)."""
        with self._transaction() as conn:
            for table, rows in inserts.items():
                if rows:
                    conn.execute(tables()[table].insert(), self._full_rows(table, rows))
            for table, by_id in (updates or {}).items():
                t = tables()[table]
                for row_id, values in by_id.items():
                    conn.execute(t.update().where(t.c.id == row_id).values(**_utc_values(values)))

    @staticmethod
    def _full_rows(table: str, rows: list[dict]) -> list[dict]:
        # executemany needs every row to carry the same keys: absent columns become NULL.
        columns = [c.name for c in tables()[table].columns]
        unknown = {k for r in rows for k in r} - set(columns)
        if unknown:
            raise ValueError(f"registry table {table} has no column(s) {sorted(unknown)}")
        return [_utc_values({c: r.get(c) for c in columns}) for r in rows]

    def delete_where(self, table: str, column: str, values) -> None:
        values = list(values)
        if values:
            t = tables()[table]
            with self._transaction() as conn:
                conn.execute(t.delete().where(t.c[column].in_(values)))

    def _select(self, table: str, **where) -> list[dict]:
        import sqlalchemy as sa

        t = tables()[table]
        query = sa.select(t)
        for column, value in where.items():
            query = query.where(t.c[column] == value)
        with self._transaction() as conn:
            return [_row(r) for r in conn.execute(query).mappings()]
