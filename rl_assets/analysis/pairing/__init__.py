"""Which baseline task is which post-RL task (pairs.py), the frames keyed by it, the settings that differ,
its report table, and which (baseline, post-RL) evals of a model are paired (eval_resolution.py)."""
