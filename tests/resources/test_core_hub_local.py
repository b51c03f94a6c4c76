"""The embedded hub backend: a folder laid out like the Hub."""

import pytest

from resources.hub import HubError, HubPermissionError, LocalHub, RepoNotFoundError


@pytest.fixture
def hub(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    root = tmp_path / "hub"
    model = root / "models" / "org" / "m-8B"
    (model / "training_logs").mkdir(parents=True)
    (model / "model.safetensors").write_bytes(b"\0" * 16)
    (model / "training_logs" / "job_1.out").write_text("line 1\n")
    (root / "models" / "org" / "empty-8B").mkdir(parents=True)
    (root / "models" / "org" / "empty-8B" / "README.md").write_text("# no weights\n")
    data = root / "datasets" / "org" / "evals" / "data"
    data.mkdir(parents=True)
    (data / "train-00000-of-00001.parquet").write_bytes(b"PAR1")
    return LocalHub(root)


def test_model_info_lists_files_weights_and_logs(hub):
    info = hub.model_info("org/m-8B")
    assert info.has_weights and info.has("training_logs/job_1.out")
    assert not hub.model_info("org/empty-8B").has_weights
    assert [i.repo_id for i in hub.list_models("org")] and {i.repo_id for i in hub.list_models()} == {
        "org/m-8B",
        "org/empty-8B",
    }


def test_revision_changes_with_content_and_subtree_revision_isolates_logs(hub):
    before = hub.model_info("org/m-8B")
    logs_before = before.subtree_revision("training_logs")
    (hub.root / "models/org/m-8B/model.safetensors").write_bytes(b"\1" * 16)
    weights_only = hub.model_info("org/m-8B")
    assert weights_only.revision != before.revision
    assert weights_only.subtree_revision("training_logs") == logs_before
    (hub.root / "models/org/m-8B/training_logs/job_2.out").write_text("more\n")
    assert hub.model_info("org/m-8B").subtree_revision("training_logs") != logs_before


def test_download_is_a_pinned_snapshot(hub):
    rev = hub.model_info("org/m-8B").revision
    snap = hub.download("org/m-8B", allow_patterns=["training_logs/**"], revision=rev)
    assert (snap / "training_logs/job_1.out").read_text() == "line 1\n"
    assert not (snap / "model.safetensors").exists()
    (hub.root / "models/org/m-8B/training_logs/job_1.out").write_text("changed\n")
    assert (snap / "training_logs/job_1.out").read_text() == "line 1\n"  # what a run read stays put
    with pytest.raises(RepoNotFoundError, match="revision"):
        hub.download("org/m-8B", revision=rev)


def test_missing_repo_and_read_only_repo(hub):
    with pytest.raises(RepoNotFoundError, match="org/nope"):
        hub.model_info("org/nope")
    assert [p.name for p in hub.dataset_files("org/evals")] == ["train-00000-of-00001.parquet"]
    assert hub.can_write("org/evals") == (True, "writable")
    (hub.root / "datasets/org/evals/.readonly").write_text("")
    ok, reason = hub.can_write("org/evals")
    assert not ok and "403" in reason
    with pytest.raises(HubPermissionError, match="org/evals"):
        hub.upload_file("org/evals", "x.txt", b"x")


def test_a_symlink_out_of_the_repo_is_refused_and_nothing_outside_is_copied(hub, tmp_path):
    """Issue 25 item 9: a link in a repo folder to a file outside it is never followed into the hub cache."""
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("not the repo's\n")
    logs = hub.root / "models/org/m-8B/training_logs"
    (logs / "job_2.out").symlink_to(outside)
    with pytest.raises(HubError, match=r"training_logs/job_2.out is a symlink .*outside the repo folder"):
        hub.download("org/m-8B", allow_patterns=["training_logs/**"])
    cached = list((tmp_path / "home").rglob("job_2.out"))
    assert cached == []
    (logs / "job_2.out").unlink()
    (logs / "job_3.out").symlink_to(logs / "job_1.out")  # a link that stays inside the repo is content
    assert hub.model_info("org/m-8B").has("training_logs/job_3.out")
