"""The demo world: a local hub, registry rows and ground truth that exercise every analysis."""

from .world import DemoWorld, build_world

__all__ = ["DemoWorld", "build_world"]
