"""How much `make ui` and its runs print: quiet by default, everything when asked.

One knob, the instance's `python_logs.python_log_level` in $DAGSTER_HOME/dagster.yaml (INFO as
rl_assets/support/instance.py writes it; DEBUG to see everything). Dagster's run console logger prints at that
level, so a run's DEBUG events (step started, input loaded, output handled: most of its lines) stay in
the event log and off the console. The daemon logs its heartbeat at INFO with no per-message level: per
sensor and tick "Checking for new runs for sensor: x" then "Sensor x skipped: …", and per automation tick
"Checking N assets/checks…", "Tick produced 0 runs…", "Finished auto-materialization tick" - two thirds of
the console. `make ui` treats those lines as DEBUG: dropped from its console unless the level is DEBUG
(`keep_console_line`); the UI's tick lists keep every one. A tick that launches or adds anything is kept.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

# the daemon's heartbeat (dagster/_daemon/sensor.py, asset_daemon.py, declarative_automation/
# automation_condition_evaluator.py; tests/core/test_quiet.py pins the wording)
HEARTBEAT = re.compile(
    r"Checking for new runs for sensor: "
    r"|Sensor \S+ skipped: "
    r"|No run requests returned for \S+, skipping"
    r"|Skipping addition of partition keys for dynamic partitions definition .* that already exist"
    r"|Checking \d+ assets/checks and \d+ observable source asset"
    r"|Tick produced 0 runs and "
    r"|Finished auto-materialization tick"
    r"|Prefetching asset records for \d+ records\."
    r"|Done prefetching asset records\."
    r"|Submitting 0 runs for evaluation "
)


def instance_log_level(dagster_home: Path | str) -> str:
    """python_logs.python_log_level of the instance (upper case), DEBUG when unset (Dagster's default)."""
    path = Path(dagster_home) / "dagster.yaml"
    config = yaml.safe_load(path.read_text()) if path.exists() else None
    level = ((config or {}).get("python_logs") or {}).get("python_log_level") or "DEBUG"
    return str(level).upper()


def keep_console_line(line: str, level: str) -> bool:
    """Whether `make ui` passes a line of `dagster dev` output on to its console.

    >>> keep_console_line("2026-01-01 - dagster.daemon.SensorDaemon - INFO - Sensor s skipped: no runs", "INFO")
    False
    >>> keep_console_line("... - Sensor s skipped: no runs", "DEBUG"), keep_console_line("Launched run abc", "INFO")
    (True, True)
    """
    return level == "DEBUG" or not HEARTBEAT.search(line)
