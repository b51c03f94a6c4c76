"""The `registry` resource: the Supabase tables `models`, `sandbox_jobs`, `benchmarks`.

Embedded default: the same tables in a SQL database through SQLAlchemy (SQLite file in the home
folder; PostgreSQL by URL). The Supabase backend (resources/registry_supabase.py) returns the
same row dicts, so the eval-pair resolver (rl_assets/analysis/eval_resolution.py) never knows
which one it talks to.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Protocol

import dagster as dg
import sqlalchemy as sa

from resources.secrets import env_secret

metadata = sa.MetaData()
_TS = sa.DateTime(timezone=True)

models_table = sa.Table(
    "models",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text, index=True, nullable=False),  # Hub repo id; NOT unique (sibling rows)
    sa.Column("base_model_id", sa.String(64), index=True),
    sa.Column("creation_time", _TS),
    sa.Column("training_start", _TS),
    sa.Column("training_end", _TS),
    sa.Column("training_type", sa.String(8)),
    sa.Column("training_status", sa.Text),
    sa.Column("duplicate_of", sa.String(64)),
    sa.Column("training_parameters", sa.JSON),
    sa.Column("agent_id", sa.String(64)),
    sa.Column("description", sa.Text),
)

benchmarks_table = sa.Table(
    "benchmarks",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text, unique=True, nullable=False),
    sa.Column("duplicate_of", sa.String(64)),
    sa.Column("description", sa.Text),
    sa.Column("is_external", sa.Boolean),
)

sandbox_jobs_table = sa.Table(
    "sandbox_jobs",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("created_at", _TS, nullable=False),
    sa.Column("job_name", sa.Text),
    sa.Column("username", sa.Text),
    sa.Column("started_at", _TS),
    sa.Column("ended_at", _TS),
    sa.Column("n_trials", sa.Integer),
    sa.Column("n_rep_eval", sa.Integer),
    sa.Column("config", sa.JSON),
    sa.Column("metrics", sa.JSON),
    sa.Column("stats", sa.JSON),
    sa.Column("agent_id", sa.String(64)),
    sa.Column("model_id", sa.String(64), index=True),
    sa.Column("benchmark_id", sa.String(64), index=True),
    sa.Column("hf_traces_link", sa.Text),
    sa.Column("job_status", sa.String(16)),
)

TABLES = {t.name: t for t in (models_table, benchmarks_table, sandbox_jobs_table)}


class RegistryBackend(Protocol):
    def models_by_name(self, name: str) -> list[dict]: ...

    def model_by_id(self, model_id: str) -> dict | None: ...

    def jobs_for_model(self, model_id: str) -> list[dict]: ...

    def benchmark_by_id(self, benchmark_id: str) -> dict | None: ...

    def benchmark_by_name(self, name: str) -> dict | None: ...

    def benchmarks(self) -> list[dict]: ...


def _as_utc(value):
    # SQLite hands timestamps back naive; they were written as UTC, so say so.
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def _utc_values(values: dict) -> dict:
    """A row to write, its aware times converted to UTC (naive ones are taken as UTC already)."""
    return {k: v.astimezone(timezone.utc) if isinstance(v, datetime) and v.tzinfo else v for k, v in values.items()}


def _row(mapping) -> dict:
    return {k: _as_utc(v) for k, v in dict(mapping).items()}


class RegistryQueries:
    """The RegistryBackend lookups, written once over a backend's `_select(table, **equals)`."""

    def _select(self, table: str, **where) -> list[dict]:
        raise NotImplementedError

    def models_by_name(self, name):
        return self._select("models", name=name)

    def model_by_id(self, model_id):
        rows = self._select("models", id=model_id)
        return rows[0] if rows else None

    def jobs_for_model(self, model_id):
        return self._select("sandbox_jobs", model_id=model_id)

    def benchmark_by_id(self, benchmark_id):
        rows = self._select("benchmarks", id=benchmark_id)
        return rows[0] if rows else None

    def benchmark_by_name(self, name):
        rows = self._select("benchmarks", name=name)
        return rows[0] if rows else None

    def benchmarks(self):
        return self._select("benchmarks")


class SqlRegistry(RegistryQueries):
    """The registry tables in any SQLAlchemy database (SQLite by default, PostgreSQL by URL)."""

    def __init__(self, url: str):
        self.url = url
        # SQLAlchemy 2.1 maps a bare postgresql:// to psycopg 3; the driver we ship is psycopg2.
        driver_url = "postgresql+psycopg2://" + url[len("postgresql://"):] if url.startswith("postgresql://") else url
        self.engine = sa.create_engine(driver_url, future=True, pool_pre_ping=True)

    def create_all(self) -> None:
        metadata.create_all(self.engine)

    def insert(self, table: str, rows: list[dict]) -> None:
        self.write({table: rows})

    def write(self, inserts: dict[str, list[dict]], updates: dict[str, dict[str, dict]] | None = None) -> None:
        """Insert rows ({table: rows}) and update rows ({table: {id: values}}) in ONE transaction: a
        write that fails part-way leaves no row behind. Aware times are stored as UTC (SQLite keeps
        no offset: 12:00+05:00 would come back as 12:00 UTC)."""
        with self.engine.begin() as conn:
            for table, rows in inserts.items():
                if rows:
                    conn.execute(TABLES[table].insert(), self._full_rows(table, rows))
            for table, by_id in (updates or {}).items():
                t = TABLES[table]
                for row_id, values in by_id.items():
                    conn.execute(t.update().where(t.c.id == row_id).values(**_utc_values(values)))

    @staticmethod
    def _full_rows(table: str, rows: list[dict]) -> list[dict]:
        # executemany needs every row to carry the same keys: absent columns become NULL.
        columns = [c.name for c in TABLES[table].columns]
        unknown = {k for r in rows for k in r} - set(columns)
        if unknown:
            raise ValueError(f"registry table {table} has no column(s) {sorted(unknown)}")
        return [_utc_values({c: r.get(c) for c in columns}) for r in rows]

    def delete_where(self, table: str, column: str, values) -> None:
        values = list(values)
        if values:
            t = TABLES[table]
            with self.engine.begin() as conn:
                conn.execute(t.delete().where(t.c[column].in_(values)))

    def _select(self, table: str, **where) -> list[dict]:
        t = TABLES[table]
        query = sa.select(t)
        for column, value in where.items():
            query = query.where(t.c[column] == value)
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(query).mappings()]



class RegistryResource(dg.ConfigurableResource):
    """The eval registry: `sql` (SQLAlchemy URL; SQLite in the home folder by default) or `supabase`.

    backend "" means: `supabase` when SUPABASE_URL is set, else `sql`. Keys only via EnvVar.
    """

    backend: str = ""
    url: str = ""
    supabase_url: str = ""
    supabase_key: str | None = None
    page_size: int = 1000

    def __repr_args__(self):
        """repr()/str() without the secret: ``supabase_key`` shows as "***" when set."""
        for name, value in super().__repr_args__():
            yield name, ("***" if name == "supabase_key" and value else value)

    def resolved_backend(self) -> str:
        if self.backend:
            return self.backend
        return "supabase" if (self.supabase_url or os.environ.get("SUPABASE_URL")) else "sql"

    def client(self) -> RegistryBackend:
        kind = self.resolved_backend()
        if kind == "sql":
            from rl_assets.settings import registry_url

            registry = SqlRegistry(self.url or registry_url())
            registry.create_all()
            return registry
        if kind == "supabase":
            from resources.registry_supabase import SupabaseRegistry

            return SupabaseRegistry(
                url=self.supabase_url or os.environ.get("SUPABASE_URL", ""),
                key=env_secret(self.supabase_key, "SUPABASE_SERVICE_ROLE_KEY", "SUPABASE_KEY") or "",
                page_size=self.page_size,
            )
        raise ValueError(f"unknown registry backend {kind!r}; use 'sql' or 'supabase'")
