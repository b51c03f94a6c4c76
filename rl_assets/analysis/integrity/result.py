"""Reward integrity's result, as INDEX.md reads it back: the verdict it shows above its table."""

from __future__ import annotations

from rl_assets.analysis.render.index_md import integrity_headline
from rl_assets.values.results import AnalysisResult


class RewardIntegrity(AnalysisResult):
    """`reward_integrity`: the run's verdict and the signals behind it (docs/integrity.md)."""

    asset = "reward_integrity"
    headline_missing = tuple(integrity_headline(None))

    def index_headline(self) -> list[str]:
        return integrity_headline(self.values)
