"""The real public runs the reward-integrity tests judge (tests/fixtures/realdata/, PROVENANCE.txt in each
folder): read once per test session, with the per-step table indexed by step for hand-read values."""

from functools import cache
from pathlib import Path

from rl_assets.analysis.integrity import reward_integrity
from rl_assets.ingest.training_logs import read_training_logs

REAL = Path(__file__).parents[1] / "fixtures" / "realdata"


@cache
def run(folder: str):
    """(parsed logs, steps indexed by step, the integrity result) of one fixture folder."""
    parsed = read_training_logs(REAL / folder)
    return parsed, parsed.steps.set_index("step"), reward_integrity(parsed.steps)
