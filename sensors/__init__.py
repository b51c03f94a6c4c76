"""Sensors; each one is listed by name in rl_assets/definitions.py."""
