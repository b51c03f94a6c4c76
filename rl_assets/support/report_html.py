"""A markdown report as the page a browser shows: report.md, INDEX.md, lineage.md rendered to HTML by
markdown-it-py (CommonMark plus tables), for the reports server (rl_assets/support/report_server.py).

Reports carry model-written text (answers, judge rationales, failure-mode names). The writers escape it
(rl_assets/values/escape.py), and this renderer adds a second wall: raw HTML in the file is shown as
text (`html: False`), never parsed, and markdown-it refuses `javascript:`/`vbscript:`/`file:` links and
non-image `data:` URLs. The page's Content-Security-Policy (report_server.CSP) runs no script at all.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

# Tables and long code lines scroll inside the page instead of widening it; images fit the column.
_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; display: block; overflow-x: auto; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; vertical-align: top; }
th { background: #f3f3f3; }
code { background: #f3f3f3; padding: 0 0.2rem; border-radius: 3px; }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; }
pre code { background: none; padding: 0; }
img { max-width: 100%; }
.raw { float: right; font-size: 0.85rem; }
"""


@cache
def _renderer() -> MarkdownIt:
    # commonmark with html off: `<script>` in a report is text; tables and ~~strike~~ as GitHub shows them
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def render_markdown(text: str) -> str:
    """The HTML of a markdown document, raw HTML in it shown as text."""
    return _renderer().render(text)


def markdown_page(path: Path) -> str:
    """A whole HTML page for the markdown file at `path`, titled by its name, with a link to the raw file."""
    name = html.escape(Path(path).name, quote=True)
    body = render_markdown(Path(path).read_text(errors="replace"))
    return (
        f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{name}</title>'
        f'<style>{_STYLE}</style></head>\n<body><a class="raw" href="{name}?raw">raw markdown</a>\n'
        f"{body}</body></html>\n"
    )
