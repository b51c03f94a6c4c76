"""md_table, the one markdown table writer (rl_assets/values/escape.py): column alignment, and cells that
stay one inert cell — raw HTML becomes entities outside code spans, while an md_code span keeps
`<` verbatim (markdown parses no HTML inside a code span), and a backslash-escaped backtick opens
no span, so it cannot shelter HTML."""

import pytest
from markdown_it import MarkdownIt

from rl_assets.values.escape import md_code, md_table

MD = MarkdownIt("commonmark", {"html": True}).enable(["table"])


def _kinds(text: str) -> list[str]:
    out = []
    for tok in MD.parse(text):
        out += [tok.type, *(c.type for c in tok.children or [])]
    return out


def test_alignment_row():
    table = md_table(["a", "b", "c"], [[1, 2, 3]], align="-rl")
    assert table.splitlines()[1] == "| --- | ---: | :--- |"
    assert md_table(["a", "b"], []).splitlines()[1] == "| :--- | ---: |"  # default: first left, rest right
    with pytest.raises(ValueError, match="2 columns"):
        md_table(["a", "b"], [], align="-")


def test_code_span_keeps_angle_brackets_verbatim():
    table = md_table(["task"], [[md_code("a<b> | c")]])
    assert "`a<b> \\| c`" in table
    assert MD.render(table).count("<code>a&lt;b&gt; | c</code>") == 1  # shown as typed, one cell


@pytest.mark.parametrize(
    "raw",
    [
        '<b onmouseover="x">bold</b>',
        '\\`<img src=x onerror="y">\\`',  # escaped backticks: no code span, so the tag must be escaped
        '``<img src=x onerror="y">`',  # unequal fences: no code span
        "`ok` <script>x</script> `ok`",
    ],
)
def test_html_outside_code_spans_is_escaped(raw):
    table = md_table(["cell"], [[raw]])
    kinds = _kinds(table)
    assert "html_inline" not in kinds and "html_block" not in kinds, (raw, table)
    assert kinds.count("td_open") == 1
