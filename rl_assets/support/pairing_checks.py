"""The two pairing checks Q1 (`behavioral_delta`) and the learning audit both declare, built from the
pairing report (rl_assets/analysis/pairing/pairs.py); both WARN, because the numbers are still right for
the tasks that did pair — but a reader must know which tasks were left out and why.

- ``task_ids_pair``: fails when a stated task-id normalisation would pair most of the tasks the raw
  ids leave unpaired (it is applied only when `settings.task_id_normalisation` names it).
- ``same_generation_settings``: fails when the two sides recorded different generation settings
  (max tokens, temperature, top-p, attempts per task, eval version, system prompt).
"""

import dagster as dg

from rl_assets.analysis.pairing.report import near_miss_line
from rl_assets.partitions import models_partitions

IDS_PAIR = "task_ids_pair"
SAME_SETTINGS = "same_generation_settings"


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
    near, differ, totals = report.get("near_miss"), report["settings_differ"], report["totals"]
    applied = report.get("normalisation") or []
    ids = dg.AssetCheckResult(
        check_name=IDS_PAIR,
        asset_key=asset,
        passed=near is None,
        severity=dg.AssetCheckSeverity.WARN,
        description=near_miss_line(near)
        or (f"task ids normalised by {', '.join(applied)}" if applied else "no near-miss task ids"),
        metadata={
            **totals,
            "normalisation": ", ".join(applied) or "none",
            "would_pair": near["would_pair"] if near else totals["paired"],
        },
    )
    settings = dg.AssetCheckResult(
        check_name=SAME_SETTINGS,
        asset_key=asset,
        passed=not differ,
        severity=dg.AssetCheckSeverity.WARN,
        description="; ".join(f"{d['setting']}: {d['before']} before, {d['after']} after" for d in differ)
        or "no recorded setting differs",
        metadata={"differing": ", ".join(d["setting"] for d in differ) or "none"},
    )
    return [ids, settings]
