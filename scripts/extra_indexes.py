"""Prints the extra package indexes `make install` passes to pip (PIP_EXTRA_INDEX_URL), one line.

A machine may configure local `file://` indexes (pip.conf `extra-index-url`) that hold only some
projects; pip then prints "Location ... is ignored: it is neither a file nor a directory" for every
locked project such a folder lacks (about 200 lines here). Remote indexes are kept as configured, and
so is a local index that holds a folder for every project in requirements.lock.txt; a local index
that lacks some is left out, since every locked project then comes from the main index (the lock file
pins the versions either way). Prints a single space when nothing is kept: pip ignores an empty
PIP_EXTRA_INDEX_URL and would fall back to the configured list.

Usage: python scripts/extra_indexes.py <pip executable> <lock file>
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

# How `pip config list` names a key's sources, in pip's precedence: environment, then site, user, global.
SOURCES = (":env:.", "site.", "user.", "global.")


def configured(pip: str) -> list[str]:
    listing = subprocess.run([pip, "config", "list"], capture_output=True, text=True, check=False).stdout
    values = dict(re.findall(r"^(\S*?)extra-index-url='(.*)'$", listing, flags=re.M))
    for source in SOURCES:
        if values.get(source, "").strip():
            return values[source].split()
    return []


def locked_projects(lock: Path) -> set[str]:
    names = set()
    for line in lock.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)", line.strip())
        if match:  # PEP 503 names (a fresh venv has pip only, so no `packaging` to do it)
            names.add(re.sub(r"[-_.]+", "-", match.group(1)).lower())
    return names


def holds_all(index: str, projects: set[str]) -> bool:
    folder = Path(unquote(urlparse(index).path))
    return folder.is_dir() and all((folder / name).is_dir() for name in projects)


def kept(indexes: list[str], projects: set[str]) -> list[str]:
    return [i for i in indexes if not i.startswith("file:") or holds_all(i, projects)]


if __name__ == "__main__":
    chosen = kept(configured(sys.argv[1]), locked_projects(Path(sys.argv[2])))
    print(" ".join(chosen) or " ")
