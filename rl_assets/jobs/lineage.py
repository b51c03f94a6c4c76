"""`refresh_lineage`: the run lineage of one RL job (partition of `rl_jobs`). What its runs
recorded (members, lineage.md) is read back by rl_assets/support/lineage_records.py.

Requested by sensors/lineage_sensor.py after an analysis run of one of the job's checkpoints
ends, and by `rldelta demo --run` after the demo job's checkpoints are analysed.
"""

import dagster as dg

from rl_assets.support.lineage_records import LINEAGE_ASSET

refresh_lineage = dg.define_asset_job(
    "refresh_lineage",
    selection=dg.AssetSelection.assets(LINEAGE_ASSET),
    description="The run lineage of one RL job: its analysed checkpoints in step order, and when each change emerged.",
)
