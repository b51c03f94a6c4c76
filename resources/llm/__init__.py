"""The LLM: the `llm` resource (resources/llm/resource.py), its client, costs, deadlines, JSON repair
and response cache."""

from __future__ import annotations

from resources.llm.resource import MODEL_ENV, OFFLINE_LABEL, SEED_MODELS, LLMResource, default_llm_resource

__all__ = ["MODEL_ENV", "OFFLINE_LABEL", "SEED_MODELS", "LLMResource", "default_llm_resource"]
