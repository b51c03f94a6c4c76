"""`analyze_model`: every per-model analysis asset for one model partition (what `make demo` runs)."""

import dagster as dg

from rl_assets.partitions import models_partitions

ANALYSIS_GROUPS = ("preflight", "q1", "q2", "q3", "q4", "audit", "report")

analyze_model = dg.define_asset_job(
    "analyze_model",
    selection=dg.AssetSelection.groups(*ANALYSIS_GROUPS),
    partitions_def=models_partitions,
    description="Every analysis asset of one model partition: preflight, Q1–Q4, audit, INDEX.md.",
    # One run at a time per model partition: two runs never write the same model's outputs.
    tags={"rldelta/job": "analyze_model"},
)
