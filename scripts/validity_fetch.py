"""Re-create the validity corpus (validity/manifest.json) from pinned commits of local git mirrors.

Every manifest entry names files as (repo, commit, path, sha256). For each distinct file this
script runs ``git --git-dir <mirror> show <commit>:<path>``, checks the sha256 the manifest
recorded and writes the bytes to ``<out>/<owner>+<name>/<commit>/<path>`` (default
``.rldelta/validity/data/``, git-ignored). It needs no network: the mirrors are bare git
directories, one per repository, found under ``--mirrors`` as ``<owner>+<name>/`` (the git dir
itself or any folder below it holding HEAD and objects/).

    python scripts/validity_fetch.py --mirrors /path/to/mirrors

Exit status 0 when every file is present and verified; 1 with one line per problem (missing
mirror, missing commit or blob, checksum mismatch) naming the repository, commit and path.
A file already in place with the right checksum is left as it is.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MANIFEST = ROOT / "validity" / "manifest.json"
DEFAULT_OUT = ROOT / ".rldelta" / "validity" / "data"
DEFAULT_MIRRORS = Path(os.environ.get("RLDELTA_VALIDITY_MIRRORS", "/work/.mirror"))


def find_git_dir(mirrors: Path, repo: str) -> Path | None:
    """The git directory of `repo` ("owner/name") under `mirrors`, or None."""
    base = mirrors / repo.replace("/", "+")
    if not base.is_dir():
        return None
    candidates = [base] + sorted(p for p in base.rglob("*") if p.is_dir() and p.name != "objects")
    for cand in candidates:
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def git(git_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True)


def distinct_files(manifest: dict) -> list[dict]:
    seen: dict[tuple, dict] = {}
    for entry in manifest["entries"]:
        for ref in entry["files"]:
            key = (ref["repo"], ref["commit"], ref["path"])
            prev = seen.get(key)
            if prev and prev["sha256"] != ref["sha256"]:
                raise SystemExit(f"manifest names {key} twice with different sha256 ({entry['id']})")
            seen[key] = ref
    return list(seen.values())


def fetch(manifest: dict, mirrors: Path, out: Path) -> list[str]:
    problems: list[str] = []
    git_dirs: dict[str, Path | None] = {}
    for ref in distinct_files(manifest):
        repo, commit, path, want = ref["repo"], ref["commit"], ref["path"], ref["sha256"]
        dest = out / repo.replace("/", "+") / commit / path
        if dest.is_file() and hashlib.sha256(dest.read_bytes()).hexdigest() == want:
            continue
        if repo not in git_dirs:
            git_dirs[repo] = find_git_dir(mirrors, repo)
        gd = git_dirs[repo]
        if gd is None:
            problems.append(f"{repo}: no git mirror under {mirrors}/{repo.replace('/', '+')} (needs {commit}:{path})")
            continue
        if git(gd, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
            problems.append(f"{repo}: commit {commit} is not in the mirror {gd}")
            continue
        shown = git(gd, "show", f"{commit}:{path}")
        if shown.returncode != 0:
            err = shown.stderr.decode("utf-8", "replace").strip().splitlines()
            problems.append(f"{repo}@{commit}: cannot read {path} ({err[-1] if err else 'git show failed'})")
            continue
        got = hashlib.sha256(shown.stdout).hexdigest()
        if got != want:
            problems.append(f"{repo}@{commit}: {path} has sha256 {got}, the manifest records {want}")
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".part")
        tmp.write_bytes(shown.stdout)
        tmp.replace(dest)
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="folder of <owner>+<name>/ git mirrors")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    manifest = json.loads(args.manifest.read_text())
    problems = fetch(manifest, args.mirrors, args.out)
    n = len(distinct_files(manifest))
    if problems:
        print(f"validity corpus: {len(problems)} of {n} files could not be re-created:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"validity corpus: {n} files verified in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
