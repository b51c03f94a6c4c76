"""The specs of the two pairing checks Q1 (`behavioral_delta`) and the learning audit both declare; their
verdicts are pure (`pairing_verdicts`, rl_assets/analysis/pairing/report.py) and built from the pairing
report (rl_assets/analysis/pairing/pairs.py); both WARN, because the numbers are still right for the tasks
that did pair — but a reader must know which tasks were left out and why.

- ``task_ids_pair``: fails when a stated task-id normalisation would pair most of the tasks the raw
  ids leave unpaired (it is applied only when `settings.task_id_normalisation` names it).
- ``same_generation_settings``: fails when the two sides recorded different generation settings
  (max tokens, temperature, top-p, attempts per task, eval version, system prompt).
"""

import dagster as dg

from rl_assets.analysis.pairing.report import IDS_PAIR, SAME_SETTINGS, pairing_verdicts
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import check_result


def pairing_check_specs(asset: str) -> list[dg.AssetCheckSpec]:
    return [
        dg.AssetCheckSpec(
            IDS_PAIR,
            asset=asset,
            partitions_def=models_partitions,
            description=(
                "No stated task-id normalisation (case, prefix, suffix, version) would pair most of the tasks the raw "
                "ids leave unpaired; set settings.task_id_normalisation to apply one"
            ),
        ),
        dg.AssetCheckSpec(
            SAME_SETTINGS,
            asset=asset,
            partitions_def=models_partitions,
            description=(
                "Both sides recorded the same generation settings (max tokens, temperature, top-p, attempts per task, "
                "eval version, system prompt): a setting change can masquerade as learning"
            ),
        ),
    ]


def pairing_checks(asset: str, report: dict) -> list[dg.AssetCheckResult]:
    """The verdicts of rl_assets/analysis/pairing/report.py over `report` as `asset`'s check results."""
    return [check_result(verdict, asset) for verdict in pairing_verdicts(report)]
