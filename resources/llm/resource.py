"""The `llm` resource: an OpenAI-compatible endpoint (judge + annotator) or an offline heuristic.

    LLMResource(api_key=EnvVar("OPENAI_API_KEY"))            # api.openai.com, default models
    LLMResource(base_url="http://vllm:8000/v1", judge_model="qwen")  # any compatible server
    LLMResource()                                             # $OPENAI_API_KEY, else offline

Backend choice happens when a run builds a session (never at import): an endpoint is configured
when a key is set (field, else $OPENAI_API_KEY, so a run config of other fields keeps it) or a base
URL is given (field or $OPENAI_BASE_URL). Without one, every
output is produced by the feature-driven heuristic and labelled OFFLINE_LABEL. The key is only
handed to the openai SDK; it never reaches logs, metadata, the ledger or a report.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import dagster as dg

from resources.llm.cache import LLMCache
from resources.llm.client import LLMClient
from resources.llm.costs import Budget, Ledger, price_for
from resources.secrets import env_secret
from rl_assets.values.masking import mask_url

OFFLINE_LABEL = "offline-heuristic (not an LLM)"
# Seed defaults (analyze-rl-behavior skill): provider prefix "openai/" stripped.
SEED_MODELS = {"judge": "gpt-5-2025-08-07", "annotate": "gpt-5.1"}
MODEL_ENV = {"judge": "RLDELTA_JUDGE_MODEL", "annotate": "RLDELTA_ANNOTATOR_MODEL"}


class LLMResource(dg.ConfigurableResource):
    """OpenAI-compatible chat endpoint with cache, retries, concurrency cap and spend budget."""

    base_url: str | None = None  # None -> $OPENAI_BASE_URL -> the SDK default (api.openai.com)
    api_key: str | None = None  # pass EnvVar("OPENAI_API_KEY"); None (and no base_url) -> offline
    judge_model: str | None = None  # None -> $RLDELTA_JUDGE_MODEL -> gpt-5-2025-08-07
    annotator_model: str | None = None  # None -> $RLDELTA_ANNOTATOR_MODEL -> gpt-5.1
    offline: bool = False  # force the heuristic even with an endpoint configured
    timeout_s: float = 240.0  # total per call (resources/llm/deadline.py), not per read
    # a larger reply is not read (resources/llm/deadline.py); 8192 tokens are ~50 KB of JSON, so 16 MiB is lavish
    max_reply_bytes: int = 16 * 2**20
    run_timeout_s: float | None = 4 * 3600.0  # total per session (one judge or annotator run); None = none
    max_retries: int = 4
    backoff_base_s: float = 2.0
    backoff_max_s: float = 60.0
    concurrency: int = 4
    max_output_tokens: int = 8192
    token_budget: int | None = None  # per run (session), prompt + completion tokens
    usd_budget: float | None = 25.0  # per run (session); None = unlimited
    input_usd_per_mtok: float | None = None  # override the price table for unlisted models
    output_usd_per_mtok: float | None = None
    response_format: str = "json_schema"  # json_schema | json_object | none (parse text)
    parse_retries: int = 1  # re-ask once when a reply cannot be parsed/validated
    cache_root: str = ""  # "" -> the store's (<storage>/llm, or $RLDELTA_LLM_CACHE), shared by every worker

    def __repr_args__(self):
        # A key passed as a plain string (tests, scripts) must not leak through repr() into logs.
        return [(k, "***" if k == "api_key" and v else v) for k, v in super().__repr_args__()]

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or None

    def resolved_api_key(self) -> str | None:
        """The key: the field, else $OPENAI_API_KEY — a run config that sets other fields (only
        `timeout_s`) builds the resource without the definitions' EnvVar, and must not lose the key."""
        return env_secret(self.api_key, "OPENAI_API_KEY")

    def is_offline(self) -> bool:
        return self.offline or not (self.resolved_api_key() or self.resolved_base_url())

    def model_for(self, purpose: str, override: str | None = None) -> str:
        if self.is_offline():
            return OFFLINE_LABEL
        field = self.judge_model if purpose == "judge" else self.annotator_model
        env = os.environ.get(MODEL_ENV.get(purpose, ""), "").strip()
        return (override or field or env or SEED_MODELS.get(purpose, SEED_MODELS["judge"])).removeprefix("openai/")

    def root(self) -> Path:
        from rl_assets.store import llm_root

        return Path(self.cache_root) if self.cache_root else llm_root()

    def earlier_roots(self) -> tuple[Path, ...]:
        """Where answers paid before the store may sit (`<cache>/llm`): read on a miss, never lost."""
        from rl_assets.store import legacy_llm_root

        return () if self.cache_root else (legacy_llm_root(),)

    def describe(self, purpose: str, model: str | None = None) -> dict:
        """Safe to log and to put in metadata/reports: never includes the key."""
        url = self.resolved_base_url()
        url = mask_url(url)  # any user:password@ an operator pasted into the URL
        offline = self.is_offline()
        return {
            "backend": "offline" if offline else "openai-compatible",
            "model": self.model_for(purpose, model),
            "base_url": None if offline else (url or "https://api.openai.com/v1"),
            "usd_budget": self.usd_budget,
            "token_budget": self.token_budget,
        }

    def session(
        self,
        purpose: str,
        partition: str,
        *,
        model: str | None = None,
        concurrency: int | None = None,
        usd_budget: float | None = None,
        token_budget: int | None = None,
        force: bool = False,
        log=None,
    ) -> LLMClient:
        """A client for one run: its own budget; cache and usage ledger shared across runs."""
        from rl_assets.partitions import slug

        offline = self.is_offline()
        name = self.model_for(purpose, model)
        sdk = None
        if not offline:
            import openai  # lazily: importing the SDK costs every process that loads the code ~2.5 s

            from resources.llm.deadline import DeadlineTransport

            sdk = openai.OpenAI(
                base_url=self.resolved_base_url(),
                # Local servers often need no key, but the SDK insists on one (and would
                # otherwise read $OPENAI_API_KEY behind the resource's back).
                api_key=self.resolved_api_key() or "no-key",
                timeout=self.timeout_s,
                max_retries=0,  # retries are ours: counted, budgeted and ledgered
                http_client=openai.DefaultHttpxClient(
                    transport=DeadlineTransport(max_reply_bytes=self.max_reply_bytes)
                ),
            )
        part = slug(partition) if "/" in partition else (partition or "unpartitioned")
        return LLMClient(
            model=name,
            offline_mode=offline,
            cache=None
            if offline
            else LLMCache(self.root() / "cache", purpose, fallbacks=[r / "cache" for r in self.earlier_roots()]),
            ledger=None if offline else Ledger(self.root() / "usage" / f"{part}.jsonl"),
            budget=Budget(
                token_budget if token_budget is not None else self.token_budget,
                usd_budget if usd_budget is not None else self.usd_budget,
            ),
            price=price_for(name, (self.input_usd_per_mtok, self.output_usd_per_mtok)),
            openai_client=sdk,
            concurrency=concurrency or self.concurrency,
            max_retries=self.max_retries,
            backoff_base_s=self.backoff_base_s,
            backoff_max_s=self.backoff_max_s,
            max_output_tokens=self.max_output_tokens,
            response_format=self.response_format,
            parse_retries=self.parse_retries,
            partition=partition,
            purpose=purpose,
            force=force,
            secrets=tuple(s for s in (self.resolved_api_key(),) if s),
            call_timeout_s=self.timeout_s,
            run_deadline=None if self.run_timeout_s is None else time.monotonic() + self.run_timeout_s,
            **({"log": log} if log else {}),
        )


def default_llm_resource() -> LLMResource:
    """The resource `build_resources()` uses: the key as an EnvVar when set (Dagster reads it)."""
    key = dg.EnvVar("OPENAI_API_KEY") if os.environ.get("OPENAI_API_KEY") else None
    return LLMResource(api_key=key)
