"""The run-level LLM settings every LLM-backed asset takes, and the budgeted session they open."""

from __future__ import annotations

import dagster as dg


class LLMRunConfig(dg.Config):
    """Model, concurrency and budgets for one run; an asset's config adds its own fields to these."""

    model: str | None = None  # override the resource's model for this asset's purpose, this run only
    concurrency: int | None = None
    usd_budget: float | None = None
    token_budget: int | None = None
    force: bool = False  # ignore cached answers (spends again)

    def session(self, llm, purpose: str, partition: str, log):
        """This run's client from the LLM resource: its own budget, the shared cache and usage ledger."""
        return llm.session(
            purpose,
            partition,
            model=self.model,
            concurrency=self.concurrency,
            usd_budget=self.usd_budget,
            token_budget=self.token_budget,
            force=self.force,
            log=log,
        )
