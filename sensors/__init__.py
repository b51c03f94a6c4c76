"""Sensors; every module-level SensorDefinition here is auto-loaded."""
