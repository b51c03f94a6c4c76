"""Resources: each one an interface with an embedded default and a real-service backend."""

from __future__ import annotations

import os

import dagster as dg

from resources.hub import HubResource
from resources.llm import default_llm_resource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.values.masking import install_log_masking

install_log_masking()  # before any client logs a URL with credentials in it


def _secret(name: str):
    """An EnvVar when the variable is set, else None: the value is read by Dagster, never here."""
    return dg.EnvVar(name) if os.environ.get(name) else None


def build_resources() -> dict:
    """The resource dict of the one Definitions object; backends chosen by environment."""
    return {
        "hub": HubResource(token=_secret("HF_TOKEN")),
        "registry": RegistryResource(
            supabase_key=_secret("SUPABASE_SERVICE_ROLE_KEY") or _secret("SUPABASE_KEY"),
        ),
        "settings": AnalysisSettings(),
        "llm": default_llm_resource(),
    }
