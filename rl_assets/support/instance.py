"""The local Dagster instance's dagster.yaml, written once into DAGSTER_HOME when missing.

It carries the rule the original operators had to remember ("never two runs against the same
output dir") as configuration: one queued run at a time per model partition, and pools that cap
concurrent calls to the Hub and the LLM endpoint. Production uses dagster.yaml.example instead.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

# Runs print events at this level (Dagster's default is DEBUG: every step start, input load and output
# handled, most of a run's console lines); `make ui` also keeps sensor-skip lines off its console
# unless it is DEBUG (rl_assets/support/console_log.py). Appended to an instance written before it existed.
QUIET_LOGS = """\
python_logs:
  # DEBUG to see every run event on the console (the event log in the UI always has them all)
  python_log_level: INFO
"""

DEFAULT_INSTANCE_YAML = (
    """\
# Written by rldelta (rl_assets/support/instance.py). Edit freely; it is never overwritten
# (only a missing python_logs is added).
# Dagster's own instance and SQLite storage, keeping one database engine per file instead of one per
# statement (rl_assets/support/sqlite_instance.py): events are stored several times faster.
instance_class:
  module: rl_assets.support.sqlite_instance
  class: ReusedEngineInstance
# Queued runs are looked at every second (default 5 s): an upload waits on this twice before INDEX.md.
run_coordinator:
  module: dagster._core.run_coordinator
  class: QueuedRunCoordinator
  config:
    dequeue_interval_seconds: 1
concurrency:
  runs:
    max_concurrent_runs: 4
    tag_concurrency_limits:
      # one run at a time per model partition: two runs never write the same model's outputs
      - key: "dagster/partition"
        value:
          applyLimitPerUniqueValue: true
        limit: 1
  pools:
    # assets declare pool="hub" / pool="llm"; each pool allows this many concurrent steps
    default_limit: 4
# The daemon (`dagster dev` runs one) marks a run whose worker died (kill -9, OOM) failed instead of
# leaving it STARTED forever; INDEX.md also says "interrupted" for a run whose process is gone.
run_monitoring:
  enabled: true
  start_timeout_seconds: 180
  max_resume_run_attempts: 0
  poll_interval_seconds: 30
telemetry:
  enabled: false
"""
    + QUIET_LOGS
)


def ensure_instance_yaml(dagster_home: Path | str | None = None) -> Path:
    home = Path(dagster_home or os.environ["DAGSTER_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    path = home / "dagster.yaml"
    if not path.exists():
        path.write_text(DEFAULT_INSTANCE_YAML)
    elif not re.search(r"^python_logs:", path.read_text(), re.M):
        with path.open("a") as out:  # the user's lines stay as they are
            out.write("\n" + QUIET_LOGS)
    return path


if __name__ == "__main__":
    print(ensure_instance_yaml(sys.argv[1] if len(sys.argv) > 1 else None))
