"""The `hub` resource: where models, training logs and trace datasets live.

Two backends behind one interface: `LocalHub` (a directory laid out like the Hub; the embedded
default and the demo world, resources/hub/local.py) and `HfHub` (the real Hugging Face Hub through
`huggingface_hub`, resources/hub/hf.py). Analyses only ever see `HubBackend`.
"""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from resources.hub.local import LocalHub
from resources.hub.types import HubBackend, HubError
from resources.secrets import env_secret


class HubResource(dg.ConfigurableResource):
    """The Hub: `local` (a folder laid out like the Hub; default) or `hf` (huggingface_hub).

    backend "" means: `hf` when HF_ENDPOINT or RLDELTA_HUB=hf is set, else `local`.
    The token is only ever passed as an EnvVar (e.g. EnvVar("HF_TOKEN")).
    """

    backend: str = ""
    local_root: str = ""
    endpoint: str = ""
    token: str | None = None
    timeout_s: float = 30.0
    max_retries: int = 4

    def __repr_args__(self):
        """repr()/str() without the secret: ``token`` shows as "***" when set."""
        for name, value in super().__repr_args__():
            yield name, ("***" if name == "token" and value else value)

    def resolved_backend(self) -> str:
        if self.backend:
            return self.backend
        return os.environ.get("RLDELTA_HUB", "").strip() or (
            "hf" if os.environ.get("HF_ENDPOINT", "").strip() else "local"
        )

    def client(self) -> HubBackend:
        kind = self.resolved_backend()
        if kind == "local":
            from rl_assets.settings import hub_dir

            return LocalHub(Path(self.local_root) if self.local_root else hub_dir())
        if kind == "hf":
            from resources.hub.hf import HfHub

            return HfHub(
                endpoint=self.endpoint or os.environ.get("HF_ENDPOINT") or None,
                token=env_secret(self.token, "HF_TOKEN"),
                timeout_s=self.timeout_s,
                max_retries=self.max_retries,
            )
        raise HubError(f"unknown hub backend {kind!r}; use 'local' or 'hf'")
