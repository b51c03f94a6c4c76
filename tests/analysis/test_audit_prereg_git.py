"""Pre-registration evidence from git: the commit time counts only for the committed content."""

import shutil
import subprocess
from datetime import UTC, datetime, timedelta

import pytest

from rl_assets.analysis.audit.prereg import registration
from rl_assets.ingest.formats.predictions import file_evidence

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

COMMITTED = datetime(2026, 10, 30, 16, 23, tzinfo=UTC)
TRAINING_START = COMMITTED + timedelta(hours=1)


def _git(repo, *args, env=None):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


@pytest.fixture
def committed_predictions(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "preds").mkdir(parents=True)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.name", "Test")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "commit.gpgsign", "false")
    path = repo / "preds" / "predictions.json"
    path.write_text('{"chain_sum": "gain"}')
    _git(repo, "add", "preds/predictions.json")
    stamp = COMMITTED.isoformat()
    monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
    monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)
    _git(repo, "commit", "-q", "-m", "predictions")
    return path


def test_unchanged_committed_file_uses_the_commit_time(committed_predictions):
    info = registration(file_evidence(committed_predictions), TRAINING_START, "registry")
    assert info["evidence"] == "git commit time"
    assert info["committed_utc"] == COMMITTED.isoformat()
    assert info["predates_training"] is True and info["verdict"].startswith("pre-registered")


def test_file_edited_after_its_commit_is_not_proven_by_the_commit(committed_predictions):
    committed_predictions.write_text('{"chain_sum": "drop"}')  # edited after training: mtime is now
    info = registration(file_evidence(committed_predictions), TRAINING_START, "registry")
    assert info["committed_utc"] is None
    assert "file differs from its last commit; mtime only" in info["evidence"]
    assert info["evidence"].startswith("file mtime")
    assert info["predates_training"] is False and info["verdict"].startswith("NOT pre-registered")
