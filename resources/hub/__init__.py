"""The hub: the `hub` resource, its two backends and their shared types (resources/hub/types.py)."""

from __future__ import annotations

from resources.hub.local import LocalHub
from resources.hub.resource import HubResource
from resources.hub.types import (
    DATA_SUFFIXES,
    WEIGHT_SUFFIXES,
    HubBackend,
    HubError,
    HubPermissionError,
    HubUnavailableError,
    RepoFile,
    RepoInfo,
    RepoNotFoundError,
)

__all__ = [
    "DATA_SUFFIXES",
    "WEIGHT_SUFFIXES",
    "HubBackend",
    "HubError",
    "HubPermissionError",
    "HubResource",
    "HubUnavailableError",
    "LocalHub",
    "RepoFile",
    "RepoInfo",
    "RepoNotFoundError",
]
