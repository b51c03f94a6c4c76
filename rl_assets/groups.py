"""The asset groups of one model's analysis, in the order INDEX.md lists them.

A neutral module: the `analyze_model` job selects these groups and the `analysis_index` asset
reports on every per-model asset in them, so both layers import the tuple from here rather than
one from the other.
"""

ANALYSIS_GROUPS = ("preflight", "q1", "q2", "q3", "q4", "audit", "integrity", "report")
