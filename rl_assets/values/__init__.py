"""Pure values every layer may import: conversations, escaping, masking, metric names, LLM value
types, timestamps, task identity.

A module here imports no Dagster, does no I/O and imports nothing first-party outside this folder
(tests/layer_rules.py), so the sources, the pure analyses, the assets and the CLI can all share it.
"""
