"""The `registry` resource: the Supabase tables `models`, `sandbox_jobs`, `benchmarks`.

Embedded default: the same tables in a SQL database through SQLAlchemy (SQLite file in the home
folder; PostgreSQL by URL; resources/registry/sql.py). The Supabase backend
(resources/registry/supabase.py) returns the same row dicts, so the eval-pair resolver
(rl_assets/analysis/pairing/eval_resolution.py) never knows which one it talks to.
"""

from __future__ import annotations

import os

import dagster as dg

from resources.registry.sql import SqlRegistry
from resources.registry.types import RegistryBackend
from resources.secrets import env_secret


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
            from resources.registry.supabase import SupabaseRegistry

            return SupabaseRegistry(
                url=self.supabase_url or os.environ.get("SUPABASE_URL", ""),
                key=env_secret(self.supabase_key, "SUPABASE_SERVICE_ROLE_KEY", "SUPABASE_KEY") or "",
                page_size=self.page_size,
            )
        raise ValueError(f"unknown registry backend {kind!r}; use 'sql' or 'supabase'")
