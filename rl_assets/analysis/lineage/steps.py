"""Where a checkpoint sits in its training run: its training step, from rl_config, else its name; and
how often the run saved a checkpoint (`save_every_from_config`).

Rules (docs/lineage.md, first match wins):
1. an integer `global_step`, `step`, `checkpoint_step` or `train_step` in rl_config (top level,
   then under `trainer`);
2. `global_step_<N>` in rl_config's `export_path` / `checkpoint_path` / `ckpt_path` (SkyRL writes
   checkpoints to `…/exports/global_step_<N>/policy`);
3. the repo name's `-<step>-<size>` suffix (`laion/job-40-8B` -> 40), the original pipeline's naming.
"""

from __future__ import annotations

import re
from typing import Any

STEP_KEYS = ("global_step", "step", "checkpoint_step", "train_step")
PATH_KEYS = ("export_path", "checkpoint_path", "ckpt_path")
_GLOBAL_STEP = re.compile(r"global_step_(\d+)")
_NAME_STEP = re.compile(r"-(\d+)-\d+(?:\.\d+)?[BbMm]$")  # the suffix resources/hub/manifest.find_job_name strips
NO_STEP = (
    "no training step: rl_config has no global_step / step / export_path …/global_step_<N>, "
    "and the repo name has no -<step>-<size> suffix"
)


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def training_step(repo_id: str, rl_config: dict[str, Any] | None) -> tuple[int | None, str]:
    """(step, where it came from); (None, why not) when nothing names one.

    >>> training_step("org/job-40-8B", None)
    (40, 'repo name -<step>-<size>')
    >>> training_step("org/job-40-8B", {"export_path": "/x/exports/global_step_35"})
    (35, 'rl_config export_path global_step_<N>')
    """
    config = rl_config if isinstance(rl_config, dict) else {}
    for where, node in (("", config), ("trainer.", config.get("trainer"))):
        if not isinstance(node, dict):
            continue
        for key in STEP_KEYS:
            step = _int(node.get(key))
            if step is not None:
                return step, f"rl_config {where}{key}"
    for key in PATH_KEYS:
        value = config.get(key)
        found = _GLOBAL_STEP.findall(value) if isinstance(value, str) else []
        if found:
            return int(found[-1]), f"rl_config {key} global_step_<N>"
    match = _NAME_STEP.search(repo_id.split("/", 1)[-1])
    if match:
        return int(match.group(1)), "repo name -<step>-<size>"
    return None, NO_STEP


def save_every_from_config(rl_config: object) -> int | None:
    """SkyRL's checkpoint interval (``trainer.ckpt_interval``) from rl_config, as a hydra override
    string or a nested dict; None when absent (the report then infers it from the logs)."""
    if not isinstance(rl_config, dict):
        return None
    for arg in rl_config.get("skyrl_hydra_args") or []:
        if isinstance(arg, str) and arg.split("=", 1)[0].lstrip("+") == "trainer.ckpt_interval":
            text = arg.split("=", 1)[1]
            return int(text) if text.isdigit() and int(text) > 0 else None
    trainer = rl_config.get("trainer")
    value = trainer.get("ckpt_interval") if isinstance(trainer, dict) else None
    return value if isinstance(value, int) and value > 0 else None
