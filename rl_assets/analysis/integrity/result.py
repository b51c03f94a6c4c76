"""Reward integrity's result, as INDEX.md reads it back: the verdict it shows above its table."""

from __future__ import annotations

from rl_assets.values.results import AnalysisResult


class RewardIntegrity(AnalysisResult):
    """`reward_integrity`: the run's verdict and the signals behind it (docs/integrity.md)."""

    asset = "reward_integrity"
    headline_missing = ("Reward integrity: not produced",)

    def index_headline(self) -> list[str]:
        # imported here: index_md imports this package's rules, and this package imports this module
        from rl_assets.analysis.index_md import integrity_headline

        return integrity_headline(self.values)
