"""The validity corpus tools: scripts/validity_fetch.py and validity/evidence.py.

The fetch script is run against a real temporary git repository (no mock of git): it must
re-create a pinned file, refuse a checksum mismatch, and name the repository and commit when a
mirror or commit is absent. evidence.py is checked against the shared reasoning-gym paper files
(skipped when /work/shared is absent): its numbers for games -> geometry must be the manifest's.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path("/work/shared/realdata/reasoning_gym_paper")


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fetch = _load("validity_fetch", ROOT / "scripts" / "validity_fetch.py")
evidence = _load("validity_evidence", ROOT / "validity" / "evidence.py")

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    import os

    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True, env={**os.environ, **env})
    return out.stdout.decode().strip()


@pytest.fixture
def mirror(tmp_path: Path):
    """A bare mirror <mirrors>/owner+name/repo holding one commit with logs/run.log."""
    work = tmp_path / "work"
    (work / "logs").mkdir(parents=True)
    payload = b"step:1 - critic/score/mean:0.5\n"
    (work / "logs" / "run.log").write_bytes(payload)
    _git(work, "init", "-q")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "c")
    commit = _git(work, "rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors"
    (mirrors / "owner+name").mkdir(parents=True)
    _git(tmp_path, "clone", "-q", "--bare", str(work), str(mirrors / "owner+name" / "repo"))
    return mirrors, commit, payload


def _manifest(commit: str, sha: str, repo: str = "owner/name") -> dict:
    ref = {"role": "log", "repo": repo, "commit": commit, "path": "logs/run.log", "sha256": sha}
    return {"entries": [{"id": "run.x", "kind": "training_run", "files": [ref]}]}


def test_fetch_recreates_a_pinned_file(mirror, tmp_path):
    mirrors, commit, payload = mirror
    out = tmp_path / "out"
    problems = fetch.fetch(_manifest(commit, hashlib.sha256(payload).hexdigest()), mirrors, out)
    assert problems == []
    assert (out / "owner+name" / commit / "logs" / "run.log").read_bytes() == payload


def test_fetch_refuses_a_checksum_mismatch_and_writes_nothing(mirror, tmp_path):
    mirrors, commit, _ = mirror
    out = tmp_path / "out"
    problems = fetch.fetch(_manifest(commit, "0" * 64), mirrors, out)
    assert len(problems) == 1 and "logs/run.log has sha256" in problems[0] and commit in problems[0]
    assert not (out / "owner+name" / commit / "logs" / "run.log").exists()


def test_fetch_names_the_missing_mirror_and_commit(mirror, tmp_path, capsys):
    mirrors, commit, payload = mirror
    sha = hashlib.sha256(payload).hexdigest()
    problems = fetch.fetch(_manifest(commit, sha, repo="other/repo"), mirrors, tmp_path / "out")
    assert problems == [f"other/repo: no git mirror under {mirrors}/other+repo (needs {commit}:logs/run.log)"]
    absent = "1" * 40
    problems = fetch.fetch(_manifest(absent, sha), mirrors, tmp_path / "out")
    assert len(problems) == 1 and f"commit {absent} is not in the mirror" in problems[0]
    # The command line exits non-zero and says so.
    manifest_path = tmp_path / "m.json"
    manifest_path.write_text(json.dumps(_manifest(commit, sha, repo="other/repo")))
    code = fetch.main(["--manifest", str(manifest_path), "--mirrors", str(mirrors), "--out", str(tmp_path / "o")])
    assert code == 1 and "other/repo" in capsys.readouterr().err


def test_manifest_entries_are_complete():
    manifest = json.loads((ROOT / "validity" / "manifest.json").read_text())
    audit = {"gamed", "mostly format", "real skill", "skill and format", "no change", "regressed", "not enough data"}
    integrity = {"reward earned outside the task", "collapsed", "healthy", "not enough data"}
    families = [e for e in manifest["entries"] if e["kind"] == "eval_family"]
    runs = [e for e in manifest["entries"] if e["kind"] == "training_run"]
    assert len(families) >= 40 and len(runs) >= 8 and len({r["trainer"] for r in runs}) >= 2
    for e in families:
        assert e["expected_label"] in audit and {f["role"] for f in e["files"]} == {"before", "after"}, e["id"]
    for e in runs:
        assert e["expected_label"] in integrity and any(f["role"] == "log" for f in e["files"]), e["id"]
    for e in manifest["entries"]:
        assert e["confidence"] in {"high", "low"} and e["why"] and e["evidence"], e["id"]
        assert all(len(f["sha256"]) == 64 and len(f["commit"]) == 40 for f in e["files"]), e["id"]


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is absent (the shared real-data folder)")
def test_evidence_on_the_shared_paper_files_matches_the_manifest():
    before = json.loads((SHARED / "original_to_geometry.json").read_text())
    after = json.loads((SHARED / "games_qwen_3b_500_to_geometry.json").read_text())
    manifest = {e["id"]: e for e in json.loads((ROOT / "validity" / "manifest.json").read_text())["entries"]}
    for dataset in ("advanced_geometry", "simple_geometry"):
        got = json.loads(json.dumps(evidence.family_evidence(before, after, dataset)))
        assert got == manifest[f"rg.games_to_geometry.{dataset}"]["evidence"]
    simple = manifest["rg.games_to_geometry.simple_geometry"]["evidence"]
    assert simple["n_tasks"] == 100 and simple["before"]["attempts"] == 300
    assert simple["gain_ci95"][0] > 0  # 0.003 -> 0.110, a significant gain
