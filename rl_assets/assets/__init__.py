"""Asset modules; each asset is listed by name in rl_assets/definitions.py."""
