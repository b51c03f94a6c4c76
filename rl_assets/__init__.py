"""rldelta: what did RL change in this checkpoint?"""

from rl_assets.support.process_guard import die_with_parent

die_with_parent()  # a step process never outlives its run (rl_assets/support/process_guard.py)
