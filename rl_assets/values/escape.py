"""The one escaping rule for untrusted strings (task ids, families, model names, answers, error
text) on their way into markdown (reports, INDEX.md, Dagster metadata) or HTML.

Markdown: `md_text` turns a string into inert inline text — one line, the characters that open
code spans, emphasis, links and table cells backslash-escaped, a leading block marker (`#`, `-`,
`>`, `1.`) escaped, and only a `<` that could open a tag or an autolink (`<a`, `</`, `<!`, `<?`) or
an `&` that would read as an entity (`&gt;`) as an HTML entity, so no heading, list, table, link,
code span or raw HTML (`<script>`, `<img onerror=…>`) can start inside it, while `a -> b`, `p < 0.05`
and `>= 3` stay as written in the .md file (a reader of the raw file sees no `-&gt;`). `md_code` shows it verbatim
as a code span whose fence is longer than any backtick run inside. HTML: `html_text` is
`html.escape` with quotes, for text and attribute values alike. Tables: `md_table` is the only
markdown table writer (reports, INDEX.md, metadata, the ingest ledger); each cell stays one cell.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any

# Inline characters that start markup (code, emphasis, links/images, table cells); `<` `>` `&`
# become entities first. Intraword `_` and `.` stay readable: they cannot open anything harmful.
_MD_SPECIAL = re.compile(r"([\\`*\[\]|~])")
# `_` opens emphasis only at a word edge (`org/x.__y__` would render "y" bold): escape it there.
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# CommonMark starts raw HTML (a tag, comment, declaration, processing instruction) or an autolink only
# at a `<` followed by a letter, `/`, `!` or `?`; any other `<`, and every `>`, is plain text (a line-
# leading `>` is a block marker, escaped by _LEADING_BLOCK). An `&` is markup only as an entity reference.
_OPENS_HTML = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# Block markers only matter where the text starts a line (a heading, list, quote, rule).
_LEADING_BLOCK = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")


def _one_line(value: object) -> str:
    return re.sub(r"[\r\n\t\v\f\u2028\u2029]+", " ", "" if value is None else str(value))


def _inert_html(text: str) -> str:
    """`text` with each `<` that could open HTML and each `&` that could open an entity made an entity."""
    return _OPENS_HTML.sub("&lt;", _ENTITY_LIKE.sub("&amp;", text))  # & first: the new entities stay whole


def md_text(value: object) -> str:
    """Untrusted text as inert markdown inline text (also safe inside a table cell)."""
    text = _inert_html(_one_line(value))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _EDGE_UNDERSCORE.sub(r"\\_", text)
    return _LEADING_BLOCK.sub(lambda m: m[1] + (m[2][:-1] + "\\" + m[2][-1]), text)


def md_code(value: object) -> str:
    """Untrusted text as a markdown code span, shown verbatim (pipes escaped for table cells)."""
    text = _one_line(value).replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def html_text(value: object) -> str:
    """Untrusted text for HTML element content or a quoted attribute value."""
    return html.escape("" if value is None else str(value), quote=True)


# A code span as md_code writes it: a backtick fence not escaped by a backslash, its content, the same
# fence again. Inside one, `<` is shown verbatim (CommonMark parses no HTML there), so it stays as is.
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _table_cell(cell: Any) -> str:
    """A table cell: one line, no raw HTML, no pipe that ends the cell (untrusted text goes through
    md_text / md_code first; cells keep the markdown emphasis and links that reports put in them)."""
    text, out, last = _one_line(str(cell)), [], 0
    for span in _CODE_SPAN.finditer(text):  # a `<` that could open HTML becomes an entity outside code spans only
        out += [_OPENS_HTML.sub("&lt;", text[last : span.start()]), span.group(0)]
        last = span.end()
    out.append(_OPENS_HTML.sub("&lt;", text[last:]))
    # a pipe md_text/md_code already escaped stays one escape (a second would end the cell)
    return re.sub(r"(?<!\\)\|", r"\\|", "".join(out))


def md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None) -> str:
    """A GitHub-flavoured markdown table, the only one reports build. align: one char per column,
    'l' (left), 'r' (right) or '-' (unaligned); default l then r."""
    headers = list(headers)
    align = align or "l" + "r" * (len(headers) - 1)
    if len(align) != len(headers):
        raise ValueError(f"md_table: {len(headers)} columns but align {align!r}")
    sep = [{"r": "---:", "l": ":---", "-": "---"}[a] for a in align]
    lines = ["| " + " | ".join(_table_cell(h) for h in headers) + " |", "| " + " | ".join(sep) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(_table_cell(c) for c in row) + " |")
    return "\n".join(lines)
