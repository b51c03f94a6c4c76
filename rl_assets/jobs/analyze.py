"""`analyze_model`: every per-model analysis asset for one model partition (what `make demo` runs)."""

import dagster as dg

from rl_assets.partitions import models_partitions

ANALYSIS_GROUPS = ("preflight", "q1", "q2", "q3", "q4", "audit", "report")

# INDEX.md ("report") is written by its own run after this one ends, success or failure, so it can
# report failed assets (a Dagster asset never runs after a failed parent in the same run).
analyze_model = dg.define_asset_job(
    "analyze_model",
    selection=dg.AssetSelection.groups(*ANALYSIS_GROUPS) - dg.AssetSelection.groups("report"),
    partitions_def=models_partitions,
    description="Every analysis asset of one model partition: preflight, Q1–Q4, audit, INDEX.md.",
    # One run at a time per model partition: two runs never write the same model's outputs.
    tags={"rldelta/job": "analyze_model"},
)

write_index = dg.define_asset_job(
    "write_index",
    selection=dg.AssetSelection.groups("report"),
    partitions_def=models_partitions,
    description="INDEX.md of one model: every analysis asset's status from the event log.",
)
