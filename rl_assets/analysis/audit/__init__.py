"""The learning audit: per task family, is the RL gain real skill, format, or a gamed reward?

Modules: ``tasks`` (rows -> tasks, family scorer), ``strategies`` (trivial-baseline registry),
``lenient`` (lenient answer reading), ``labels`` (rules), ``audit`` (per-family numbers),
``prereg`` (was the predictions file, read by ingest/formats/predictions.py, written before training),
``llm_verdict`` (optional LLM second opinion), ``report`` (json/md).
"""

from rl_assets.analysis.audit.audit import AUDIT_COLUMNS, audit_rows

__all__ = ["AUDIT_COLUMNS", "audit_rows"]
