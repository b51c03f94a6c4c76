"""Rendering shared by every report: markdown tables and sidecars, escaping, links, figures, INDEX.md."""
