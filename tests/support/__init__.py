"""Test helpers (worlds, loopback servers, synthetic data); never collected as tests."""
