"""Explicit jobs (auto-loaded by rl_assets.definitions)."""
