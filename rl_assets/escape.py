"""The one escaping rule for untrusted strings (task ids, families, model names, answers, error
text) on their way into markdown (reports, INDEX.md, Dagster metadata) or HTML.

Markdown: `md_text` turns a string into inert inline text — one line, the characters that open
code spans, emphasis, links and table cells backslash-escaped, a leading block marker (`#`, `-`,
`>`, `1.`) escaped, and `<`, `>`, `&` as HTML entities, so no heading, list, table, link, code
span or raw HTML (`<script>`, `<img onerror=…>`) can start inside it. `md_code` shows it verbatim
as a code span whose fence is longer than any backtick run inside. HTML: `html_text` is
`html.escape` with quotes, for text and attribute values alike.
"""

from __future__ import annotations

import html
import re

# Inline characters that start markup (code, emphasis, links/images, table cells); `<` `>` `&`
# become entities first. Intraword `_` and `.` stay readable: they cannot open anything harmful.
_MD_SPECIAL = re.compile(r"([\\`*\[\]|~])")
# `_` opens emphasis only at a word edge (`org/x.__y__` would render "y" bold): escape it there.
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# Block markers only matter where the text starts a line (a heading, list, quote, rule).
_LEADING_BLOCK = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")


def _one_line(value) -> str:
    return re.sub(r"[\r\n\t\v\f\u2028\u2029]+", " ", "" if value is None else str(value))


def md_text(value) -> str:
    """Untrusted text as inert markdown inline text (also safe inside a table cell)."""
    text = html.escape(_one_line(value), quote=False)  # & < > first: the entities' & is not escaped again
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _EDGE_UNDERSCORE.sub(r"\\_", text)
    return _LEADING_BLOCK.sub(lambda m: m[1] + (m[2][:-1] + "\\" + m[2][-1]), text)


def md_code(value) -> str:
    """Untrusted text as a markdown code span, shown verbatim (pipes escaped for table cells)."""
    text = _one_line(value).replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def html_text(value) -> str:
    """Untrusted text for HTML element content or a quoted attribute value."""
    return html.escape("" if value is None else str(value), quote=True)
