"""The registry's shared types: the tables `models`, `sandbox_jobs`, `benchmarks`, the backend
interface, and the lookups written once over a backend's `_select`.

Both backends (resources/registry/sql.py, resources/registry/supabase.py) import these; this module
imports neither, so the backends never import each other.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import sqlalchemy as sa


@functools.cache
def metadata() -> sa.MetaData:
    """The registry tables on one MetaData, built on first use of a registry backend (sqlalchemy
    loads then, not with the definitions: tests/architecture/test_import_cost.py)."""
    import sqlalchemy as sa

    meta = sa.MetaData()
    ts = sa.DateTime(timezone=True)

    sa.Table(
        "models",
        meta,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, index=True, nullable=False),  # Hub repo id; NOT unique (sibling rows)
        sa.Column("base_model_id", sa.String(64), index=True),
        sa.Column("creation_time", ts),
        sa.Column("training_start", ts),
        sa.Column("training_end", ts),
        sa.Column("training_type", sa.String(8)),
        sa.Column("training_status", sa.Text),
        sa.Column("duplicate_of", sa.String(64)),
        sa.Column("training_parameters", sa.JSON),
        sa.Column("agent_id", sa.String(64)),
        sa.Column("description", sa.Text),
    )

    sa.Table(
        "benchmarks",
        meta,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, unique=True, nullable=False),
        sa.Column("duplicate_of", sa.String(64)),
        sa.Column("description", sa.Text),
        sa.Column("is_external", sa.Boolean),
    )

    sa.Table(
        "sandbox_jobs",
        meta,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("created_at", ts, nullable=False),
        sa.Column("job_name", sa.Text),
        sa.Column("username", sa.Text),
        sa.Column("started_at", ts),
        sa.Column("ended_at", ts),
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
    return meta


def tables() -> Mapping[str, sa.Table]:
    """The registry tables by name: models, benchmarks, sandbox_jobs."""
    return metadata().tables


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
