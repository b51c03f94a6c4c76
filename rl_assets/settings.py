"""The environment's say on where rldelta keeps things: one home folder, overridable piece by piece.

Read at call time (never at import) so tests and `dagster dev` can point RLDELTA_HOME elsewhere.
What lives where under these roots (tables, hand-overs, caches, reports) is rl_assets/store.py's.
"""

from __future__ import annotations

import os
from pathlib import Path


def _env_path(name: str, default: Path) -> Path:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else default


def home_dir() -> Path:
    """The home folder: $RLDELTA_HOME or ./.rldelta (created on demand)."""
    home = _env_path("RLDELTA_HOME", Path.cwd() / ".rldelta")
    home.mkdir(parents=True, exist_ok=True)
    return home


def storage_root() -> str:
    """Asset storage root; an absolute local path or an fsspec URL such as s3://bucket/rldelta.

    A relative path is resolved against the working directory when first read and recorded back into
    RLDELTA_STORAGE, so every reader in this process (the store, sensors, the lineage) and every process
    started from it see one root, whatever directory they later run in."""
    value = os.environ.get("RLDELTA_STORAGE", "").strip()
    if not value:
        return str(home_dir() / "storage")
    if "://" in value and not value.startswith("file://"):
        return value  # an object store's URL
    path = Path(value.removeprefix("file://")).expanduser()
    if not path.is_absolute():
        path = path.resolve()
        os.environ["RLDELTA_STORAGE"] = str(path)
    return str(path)


def reports_root() -> Path:
    """$RLDELTA_REPORTS or <home>/reports: outputs for people (rl_assets/store.py lays them out)."""
    return _env_path("RLDELTA_REPORTS", home_dir() / "reports")


def hub_dir() -> Path:
    """Root of the local-directory hub (the embedded default and the demo world)."""
    return _env_path("RLDELTA_HUB_DIR", home_dir() / "hub")


def registry_url() -> str:
    """SQLAlchemy URL of the registry: SQLite in the home folder unless configured."""
    value = os.environ.get("RLDELTA_REGISTRY_URL", "").strip()
    return value or f"sqlite:///{home_dir() / 'registry.sqlite'}"


def cache_dir() -> Path:
    """$RLDELTA_CACHE or <home>/cache: this machine's caches, never handed to another step."""
    path = _env_path("RLDELTA_CACHE", home_dir() / "cache")
    path.mkdir(parents=True, exist_ok=True)
    return path


def ui_url() -> str:
    """The Dagster webserver's base URL ($RLDELTA_UI_URL, e.g. http://127.0.0.1:3000), or "" when unknown.

    INDEX.md links run ids to `<this>/runs/<id>` only when it is set: a guessed URL would be a dead link.
    """
    return os.environ.get("RLDELTA_UI_URL", "").strip().rstrip("/")
