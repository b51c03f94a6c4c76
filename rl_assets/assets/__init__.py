"""Asset modules, and the one ordered list of a model's analyses.

ANALYSES is that list: one line per analysis group, (group, its assets), in the order INDEX.md
lists them. Everything else derives from it: each asset's group is its line's group (applied
here with Dagster's `map_asset_specs`, so an analysis asset's decorator names no group),
`analyze_model` selects its groups plus "report" (rl_assets/jobs/analyze.py), `analysis_index`
depends on its assets and orders INDEX.md by it (report_index.py), and rl_assets/definitions.py
defines its assets. A per-model asset defined in an asset module but missing here fails
tests/architecture/test_definitions_snapshot.py. Other assets name their group in their decorator
and are listed by name in rl_assets/definitions.py.
"""

from collections.abc import Iterable

import dagster as dg

from rl_assets.assets.audit import learning_audit
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.failure_modes import failure_modes
from rl_assets.assets.q1_behavioral_delta import behavioral_delta
from rl_assets.assets.q1_llm_judge import judge_verdicts
from rl_assets.assets.q2_rl_temporal import rl_temporal, rl_traces
from rl_assets.assets.q2_training import training_logs, training_metrics
from rl_assets.assets.q3_overlay import eval_temporal_overlay
from rl_assets.assets.q3_trace_pairs import trace_pairs
from rl_assets.assets.q4_solve_rate import solve_rate_by_context_asset
from rl_assets.assets.reward_integrity import reward_integrity
from rl_assets.assets.traces import eval_traces

ANALYSES = (
    ("preflight", (checkpoint, eval_pair, eval_traces)),
    ("q1", (behavioral_delta, judge_verdicts, failure_modes)),
    ("q2", (training_logs, training_metrics, rl_traces, rl_temporal)),
    ("q3", (trace_pairs, eval_temporal_overlay)),
    ("q4", (solve_rate_by_context_asset,)),
    ("audit", (learning_audit,)),
    ("integrity", (reward_integrity,)),
)
# INDEX.md's own group: `analysis_index` runs after every asset above.
REPORT_GROUP = "report"


def in_group(group: str, assets: Iterable[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    """`assets` with every key in `group`: the group of an analysis asset is written only in ANALYSES."""
    return list(dg.map_asset_specs(lambda spec: spec.replace_attributes(group_name=group), list(assets)))


# The assets as defined: ANALYSIS holds copies carrying their line's group, so the list is checked
# by asset key (tests/architecture/test_definitions_snapshot.py), not by object identity.
ANALYSIS = [asset for group, assets in ANALYSES for asset in in_group(group, assets)]
ANALYSIS_GROUPS = (*(group for group, _ in ANALYSES), REPORT_GROUP)
