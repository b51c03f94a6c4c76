"""The registry: the `registry` resource, its two backends and their shared types (resources/registry/types.py)."""

from __future__ import annotations

from resources.registry.resource import RegistryResource
from resources.registry.sql import SqlRegistry
from resources.registry.types import RegistryBackend, RegistryQueries, metadata, tables

__all__ = ["RegistryBackend", "RegistryQueries", "RegistryResource", "SqlRegistry", "metadata", "tables"]
