"""The escaping rule's home for analyses and assets; it lives in the neutral `rl_assets.values.escape` so the
ingest layer (skip reasons, file names in its accounting markdown) uses the same rule."""

from rl_assets.values.escape import _one_line, html_text, md_code, md_text  # noqa: F401 - re-exported

__all__ = ["html_text", "md_code", "md_text"]
