"""Asset modules; every module here is auto-loaded by rl_assets.definitions."""
