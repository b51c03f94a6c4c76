"""HfHub through the real huggingface_hub client against the loopback Hub (tests/support/hub_server.py).

The same folder is read through LocalHub, so every answer is compared with the embedded backend.
"""

import os

import pytest

from resources.hub import HubPermissionError, HubUnavailableError, LocalHub, RepoNotFoundError
from resources.hub.hf import HfHub

TOKEN = "hf_secret_test_token_xyz"


@pytest.fixture
def world(rldelta_home, hub_server):
    root = rldelta_home / "hub"
    model = root / "models" / "org" / "rl-8B"
    (model / "training_logs").mkdir(parents=True)
    (model / "model.safetensors").write_bytes(b"\1" * 64)
    (model / "README.md").write_text("# rl-8B\n")
    (model / "training_logs" / "job_1.out").write_text("WANDB_MIRROR kind=train step=1 metrics={}\n")
    older = root / "models" / "org" / "base-8B"
    older.mkdir(parents=True)
    (older / "model.safetensors").write_bytes(b"\2" * 8)
    os.utime(older / "model.safetensors", (1_700_000_000, 1_700_000_000))
    data = root / "datasets" / "org" / "evals" / "data"
    data.mkdir(parents=True)
    (data / "train-00000-of-00001.parquet").write_bytes(b"PAR1fake")
    (data.parent / "README.md").write_text("card")
    hub_server.token = TOKEN
    return LocalHub(root), HfHub(endpoint=hub_server.url, token=TOKEN, timeout_s=2, max_retries=3, backoff_s=0.05)


def test_model_info_matches_the_local_backend(world, hub_server):
    local, hf = world
    a, b = local.model_info("org/rl-8B"), hf.model_info("org/rl-8B")
    assert (b.revision, b.paths, [f.size for f in b.files]) == (a.revision, a.paths, [f.size for f in a.files])
    assert b.has_weights and b.subtree_revision("training_logs") == a.subtree_revision("training_logs")
    assert b.last_modified.tzinfo is not None
    assert hf.model_info("org/rl-8B", revision=a.revision).revision == a.revision
    assert all(authorized for _, _, authorized in hub_server.requests)  # the token was sent every time


def test_training_logs_upload_changes_only_the_logs_subtree_revision(world):
    local, hf = world
    before = hf.model_info("org/rl-8B")
    (local.root / "models/org/rl-8B/training_logs/job_2.out").write_text("more\n")
    after = hf.model_info("org/rl-8B")
    assert after.revision != before.revision
    assert after.subtree_revision("training_logs") != before.subtree_revision("training_logs")


def test_list_models_newest_first_and_existence(world):
    _, hf = world
    assert [i.repo_id for i in hf.list_models("org")] == ["org/rl-8B", "org/base-8B"]
    assert hf.repo_exists("org/evals", "dataset") and not hf.repo_exists("org/nope", "dataset")
    assert hf.dataset_info("org/evals").has("data/train-00000-of-00001.parquet")


def test_download_is_pinned_filtered_and_cached_under_the_home(world, rldelta_home):
    local, hf = world
    rev = local.model_info("org/rl-8B").revision
    folder = hf.download("org/rl-8B", allow_patterns=["training_logs/**", "README.md"], revision=rev)
    assert folder.name == rev and str(folder).startswith(str(rldelta_home / "cache"))
    got = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert got == ["README.md", "training_logs/job_1.out"]
    assert (folder / "training_logs/job_1.out").read_text().startswith("WANDB_MIRROR")
    files = hf.dataset_files("org/evals")
    assert [p.name for p in files] == ["train-00000-of-00001.parquet"] and files[0].read_bytes() == b"PAR1fake"


def test_hf_home_is_honoured(world, tmp_path, monkeypatch):
    _, hf = world
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    assert str(hf.download("org/evals", "dataset")).startswith(str(tmp_path / "hf-home" / "hub"))


def test_recovers_from_500s_and_429_with_retry_after(world, hub_server, caplog):
    _, hf = world
    hub_server.inject("/api/models/org/rl-8B", status=500, times=2)
    hub_server.inject("/api/datasets/org/evals", status=429, retry_after=1, times=1)
    hub_server.inject("/resolve/", status=503, times=1, method="HEAD")
    assert hf.model_info("org/rl-8B").has_weights
    with caplog.at_level("WARNING"):
        assert hf.dataset_files("org/evals")
    # Retry-After: 1 was honoured, not the 0.05 s backoff (the wait the client chose, from its log)
    assert any("org/evals: HTTP 429, retry 1/" in m and m.endswith("in 1.0s") for m in caplog.messages)
    assert hub_server.paths("GET").count("/api/models/org/rl-8B?blobs=true") == 3


def test_slow_response_is_a_timeout_then_retried(world, hub_server, caplog):
    _, hf = world
    hub_server.inject("/api/models/org/rl-8B", status=None, delay=3.0, times=1)
    assert hf.model_info("org/rl-8B").has_weights  # 2 s client timeout, second attempt is fast
    # The tree listing is paginated with timeout=None inside huggingface_hub: still bounded.
    hub_server.inject("/api/datasets/org/evals/tree/", status=None, delay=8.0, times=1)
    with caplog.at_level("WARNING"):
        assert hf.dataset_files("org/evals")
    # the slow listing was cut by the session timeout and retried (not waited out for 8 s):
    # huggingface_hub's own retry logs the timed-out request
    assert any("timed out" in m and "/api/datasets/org/evals/tree/" in m for m in caplog.messages)


def test_persistent_failure_is_unavailable_naming_the_repo(world, hub_server):
    _, hf = world
    hub_server.inject("/api/models/org/rl-8B", status=502, times=None)
    with pytest.raises(HubUnavailableError, match="org/rl-8B.*after 4 attempts"):
        hf.model_info("org/rl-8B")


def test_missing_repo_and_bad_token_name_the_repo_and_the_fix(world, hub_server):
    _, hf = world
    with pytest.raises(RepoNotFoundError, match=r"org/missing-8B.*check the id.*HF_TOKEN"):
        hf.model_info("org/missing-8B")
    with pytest.raises(RepoNotFoundError, match="revision"):
        hf.model_info("org/rl-8B", revision="0" * 40)
    bad = HfHub(endpoint=hub_server.url, token="hf_wrong", timeout_s=2, max_retries=1, backoff_s=0.01)
    with pytest.raises(HubPermissionError, match=r"401.*org/rl-8B.*HF_TOKEN") as info:
        bad.model_info("org/rl-8B")
    assert "hf_wrong" not in str(info.value) and "hf_wrong" not in repr(bad)


def test_can_write_and_upload(world, hub_server):
    local, hf = world
    ok, reason = hf.can_write("org/evals")
    assert ok, reason
    revision = hf.upload_file("org/evals", "failure_modes/report.json", b'{"a": 1}', commit_message="rldelta test")
    assert (local.root / "datasets/org/evals/failure_modes/report.json").read_bytes() == b'{"a": 1}'
    assert revision == local.dataset_info("org/evals").revision
    assert any(p.startswith("/api/datasets/org/evals/commit/main") for p in hub_server.paths("POST"))
    assert not any("settings" in p or "repos/create" in p for p in hub_server.paths())  # visibility untouched


def test_403_on_write_is_reported_by_can_write_before_any_upload(world, hub_server):
    local, hf = world
    (local.root / "datasets/org/evals/.readonly").touch()
    ok, reason = hf.can_write("org/evals")
    assert not ok and "403" in reason and "org/evals" in reason and "write access" in reason
    assert not any("preupload" in p or "commit" in p for p in hub_server.paths())
    with pytest.raises(HubPermissionError, match="org/evals"):
        hf.upload_file("org/evals", "x.json", b"{}")
    ok, reason = hf.can_write("org/nope")
    assert not ok and "create it first" in reason


def test_environment_chooses_the_backends(rldelta_home, monkeypatch):
    from resources.hub import HubResource
    from resources.registry import RegistryResource

    assert HubResource().resolved_backend() == "local" and RegistryResource().resolved_backend() == "sql"
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    assert HubResource().resolved_backend() == "hf"
    assert repr(HubResource(token=TOKEN).client()) == "HfHub(endpoint='http://127.0.0.1:9')"
    monkeypatch.setenv("RLDELTA_HUB", "local")
    assert HubResource().resolved_backend() == "local"  # an explicit choice beats a mirror setting
    monkeypatch.setenv("SUPABASE_URL", "http://127.0.0.1:9")
    assert RegistryResource().resolved_backend() == "supabase"


def test_listing_is_one_request_whatever_the_number_of_repos(world, hub_server):
    # The checkpoint sensor lists every tick: it must not fetch each repo's files to do so.
    _, hf = world
    hub_server.requests.clear()
    infos = hf.list_models("org")
    assert len(infos) == 2 and all(i.revision and not i.files for i in infos)
    assert [p for _, p, _ in hub_server.requests if p.startswith("/api/models")] == [
        p for _, p, _ in hub_server.requests
    ]
    assert len(hub_server.requests) == 1
