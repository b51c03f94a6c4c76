"""The registry's shared types: the tables `models`, `sandbox_jobs`, `benchmarks`, the backend
interface, and the lookups written once over a backend's `_select`.

Both backends (resources/registry/sql.py, resources/registry/supabase.py) import these; this module
imports neither, so the backends never import each other.
"""

from __future__ import annotations

from typing import Protocol

import sqlalchemy as sa

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
