"""md_text and md_table leave plain text plain (issue 36): a reader of the raw .md file sees `0.2 -> 0.8`,
`p < 0.05` and `>= 3` as written, not `-&gt;`; only what could open HTML or an entity becomes an
entity, and markdown still renders every string as the same text, with no HTML."""

import html

import pytest
from markdown_it import MarkdownIt

from rl_assets.values.escape import md_table, md_text

MD = MarkdownIt("commonmark", {"html": True}).enable(["table"])


@pytest.mark.parametrize(
    "plain", ["Reward 0.188 -> 0.875", "p < 0.05 needed", "share >= 3 tasks", "R&D 3 < 4 > 2", "a<3"]
)
def test_plain_text_stays_as_written(plain):
    assert md_text(plain) == plain
    assert md_table(["x"], [[plain]]).splitlines()[2] == f"| {plain} |"


@pytest.mark.parametrize(
    ("hostile", "shown"),
    [
        ("<script>x</script>", "<script>x</script>"),
        ("</b> <!-- c --> <?php ?>", "</b> <!-- c --> <?php ?>"),
        ("<https://evil.example>", "<https://evil.example>"),
        ("&gt; &#60; &amp;", "&gt; &#60; &amp;"),
    ],
)
def test_what_could_open_html_or_an_entity_is_shown_as_typed(hostile, shown):
    for text in (md_text(hostile), md_table(["x"], [[hostile]])):
        kinds = [c.type for tok in MD.parse(text) for c in tok.children or []] + [t.type for t in MD.parse(text)]
        assert not {"html_inline", "html_block", "link_open"} & set(kinds), text
    assert html.unescape(MD.renderInline(md_text(hostile))) == shown
