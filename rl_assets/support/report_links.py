"""Report files as the UI shows them: the server path, a URL someone at a remote UI can open, and
for a markdown report that fits, its content.

The URL base is $RLDELTA_REPORTS_URL: `make ui` sets it to the read-only reports server it starts
(rl_assets/support/report_server.py); in production it names where the reports folder is published (object
storage). `rldelta demo --run` and `rldelta analyze` set it, when unset, to where `make ui` will serve the
reports (report_server.make_ui_url), so `make demo` then `make ui` shows working links. Unset otherwise (a
bare `dagster dev`, tests), no URL is recorded: a guessed one would be a dead link.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import dagster as dg

from rl_assets.analysis.render.md_links import absolute_links
from rl_assets.settings import reports_root

# Dagster stores metadata in the event log and sends it to the UI whole: a report larger than this is
# linked only (its URL), never inlined.
MAX_INLINE_CHARS = 40_000


def reports_url() -> str:
    """$RLDELTA_REPORTS_URL without its trailing slash, or "" when reports are not published."""
    return os.environ.get("RLDELTA_REPORTS_URL", "").strip().rstrip("/")


def url_of(path: Path | str) -> str | None:
    """The URL of a file (or folder) under the reports root, or None (no URL base, or not a report)."""
    base = reports_url()
    if not base:
        return None
    try:
        rel = Path(path).resolve().relative_to(reports_root().resolve())
    except ValueError:
        return None
    return f"{base}/{quote(rel.as_posix())}" if rel.parts else base


def file_metadata(key: str, path: Path | str, *, inline: bool = True) -> dict[str, dg.MetadataValue]:
    """`key`: the path; `<key>_url`: its URL when reports are published; `<key>_content`: a markdown
    file's text (relative links made absolute, or plain text without a URL) when `inline` and it fits."""
    path = Path(path)
    out: dict[str, dg.MetadataValue] = {key: dg.MetadataValue.path(str(path))}
    url = url_of(path)
    if url:
        out[f"{key}_url"] = dg.MetadataValue.url(url)
    if inline and path.suffix == ".md" and path.is_file() and path.stat().st_size <= MAX_INLINE_CHARS:
        out[f"{key}_content"] = dg.MetadataValue.md(
            absolute_links(path.read_text(errors="replace"), url_of(path.parent))
        )
    return out
