"""Relative links in markdown made to work where the markdown is shown away from its folder.

A report's markdown links its neighbours relatively (`[pairs](pairs.html)`, `../runs/job/lineage.md`),
which works in the reports folder and its server but not in the Dagster UI, where a relative link
resolves against the UI's own page (the "Run lineage" link opened the Runs timeline). For the UI,
each relative link becomes absolute under the folder's URL, or, with no URL known, plain text: a
link that cannot resolve is worse than none. A relative image becomes a link to the file: the UI
shows only pixels carried in the event itself (every plot already is, in its own metadata entry).
"""

from __future__ import annotations

import posixpath
import re

# `[label](target)` and `![alt](target)`; a target with a scheme (http:, data:, mailto:), a leading
# `/` or `#` is left as it is.
_LINK = re.compile(r"(!?)\[((?:[^\]\\]|\\.)*)\]\(([^()\s]+)\)")
_ABSOLUTE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|/|#)")


def absolute_links(text: str, folder_url: str | None) -> str:
    """`text` with each relative link resolved against `folder_url` (the URL of the folder the markdown
    lives in), or, when it is None/empty, replaced by its label.

    >>> absolute_links("[lineage](../runs/j/lineage.md) and [x](http://h/x)", "http://r:1/org__m")
    '[lineage](http://r:1/runs/j/lineage.md) and [x](http://h/x)'
    >>> absolute_links("see [lineage](../runs/j/lineage.md) ![plot](p.png)", None)
    'see lineage plot'
    >>> absolute_links("![plot](p.png) ![inline](data:image/png;base64,AA==)", "http://r:1/org__m")
    '[plot](http://r:1/org__m/p.png) ![inline](data:image/png;base64,AA==)'
    """
    base = (folder_url or "").rstrip("/")

    def fix(m: re.Match[str]) -> str:
        _bang, label, target = (str(g) for g in m.groups())
        if _ABSOLUTE.match(target):
            return m.group(0)
        if not base:
            return label
        scheme, _, rest = base.partition("://")
        host, _, path = rest.partition("/")
        joined = posixpath.normpath(posixpath.join("/" + path, target))
        if joined.startswith("/.."):  # above the server's root: no such URL
            return label
        return f"[{label}]({scheme}://{host}{joined})"

    return _LINK.sub(fix, text)
