"""rldelta: what did RL change in this checkpoint?"""

from rl_assets.support.long_lived import freeze_long_lived
from rl_assets.support.process_guard import die_with_parent

die_with_parent()  # a step process never outlives its run (rl_assets/support/process_guard.py)
# What was imported before rldelta's first module (Dagster, when it loads the code location) lives
# as long as the process: out of the collector's passes (rl_assets/support/long_lived.py).
freeze_long_lived()
