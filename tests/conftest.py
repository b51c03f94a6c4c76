"""Shared fixtures: an isolated home folder, a loopback Hub, a scratch PostgreSQL database, and the
Dagster set-up of the asset tests (an instance with model partitions; materialize one partition
with stub upstreams).

Keep this file generic; area-specific fixtures live in the test files that use them.
"""

import os
import uuid
from pathlib import Path

import pytest

# Variables that would point a test at a developer's real folders, services or secrets.
_ISOLATE = (
    "RLDELTA_STORAGE",
    "RLDELTA_LLM_CACHE",
    "RLDELTA_REPORTS",
    "RLDELTA_HUB_DIR",
    "RLDELTA_REGISTRY_URL",
    "RLDELTA_CACHE",
    "RLDELTA_HUB",
    "RLDELTA_FORKED_CALLS",
    "HF_ENDPOINT",
    "HF_HOME",
    "HF_HUB_CACHE",
    "SUPABASE_URL",
    "SUPABASE_KEY",
    "SUPABASE_SERVICE_ROLE_KEY",
    "HF_TOKEN",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RLDELTA_JUDGE_MODEL",
    "RLDELTA_ANNOTATOR_MODEL",
    "RLDELTA_WATCH_AUTHORS",
    "RLDELTA_COMPARE_BENCHMARK",
    "DAGSTER_HOME",
    # the AWS credentials chain s3fs reads: a developer's real account or endpoint stays out of the tests
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
)


@pytest.fixture(scope="session", autouse=True)
def _isolated_session(tmp_path_factory):
    """Every test starts from a throwaway home and no real services or keys, even module-scoped
    fixtures that never ask for one (nothing is written into the checkout or a real home)."""
    with pytest.MonkeyPatch.context() as mp:
        for name in _ISOLATE:
            mp.delenv(name, raising=False)
        mp.setenv("RLDELTA_HOME", str(tmp_path_factory.mktemp("session-home")))
        yield


@pytest.fixture
def rldelta_home(tmp_path, monkeypatch) -> Path:
    """RLDELTA_HOME = a fresh tmp folder, with every per-piece override removed."""
    for name in _ISOLATE:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("RLDELTA_HOME", str(home))
    return home


@pytest.fixture
def hub_server(rldelta_home, monkeypatch):
    """A loopback Hub (tests/support/hub_server.py) serving `<home>/hub`, the LocalHub folder."""
    from support.hub_server import HubServer

    # huggingface_hub colours some messages only after fetching {HF_ENDPOINT}/api/agent-harnesses
    # from the public Hub; NO_COLOR skips that, keeping the tests on loopback.
    monkeypatch.setenv("NO_COLOR", "1")

    (rldelta_home / "hub").mkdir(exist_ok=True)
    with HubServer(rldelta_home / "hub") as server:
        yield server


@pytest.fixture
def partition_instance():
    """partition_instance(*model_ids, tempdir=None) -> an ephemeral Dagster instance with those
    `models` partitions added (none: an empty instance). Each one is disposed after the test."""
    from support.dagster_run import partition_instance as make

    made = []

    def make_instance(*keys: str, tempdir: str | None = None):
        made.append(make(*keys, tempdir=tempdir))
        return made[-1]

    yield make_instance
    for instance in made:
        instance.dispose()


@pytest.fixture
def materialize_partition(partition_instance):
    """materialize_partition(assets, model_id, *, stubs={name: value}, resources=, run_config=,
    instance=, **dg.materialize kwargs): one partition's run, each upstream in `stubs` replaced by an
    asset returning the given value; without `instance`, a fresh one holding that partition
    (tests/support/dagster_run.py)."""
    from support.dagster_run import materialize_partition as materialize

    def run(assets, partition: str, *, instance=None, **kw):
        return materialize(assets, partition, instance=instance or partition_instance(partition), **kw)

    return run


@pytest.fixture
def pg_url():
    """A fresh, empty PostgreSQL database on the test server (dropped afterwards).

    The server comes from RLDELTA_TEST_PG_URL (scripts/setup.d/20-postgres.sh under `make test`);
    without it the test skips with the reason the set-up script gave.
    """
    base = os.environ.get("RLDELTA_TEST_PG_URL", "").strip()
    if not base:
        why = os.environ.get("RLDELTA_TEST_PG_SKIP") or "RLDELTA_TEST_PG_URL is not set"
        pytest.skip(f"no PostgreSQL for this test: {why} (run `make test`, or set RLDELTA_TEST_PG_URL)")
    import psycopg2
    from sqlalchemy.engine import make_url

    url = make_url(base)
    name = f"rldelta_t_{uuid.uuid4().hex[:10]}"
    admin = psycopg2.connect(url.set(drivername="postgresql").render_as_string(hide_password=False))
    admin.autocommit = True
    try:
        with admin.cursor() as cur:
            cur.execute(f'CREATE DATABASE "{name}"')
        yield url.set(database=name).render_as_string(hide_password=False)
        with admin.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.close()


@pytest.fixture
def s3_root(monkeypatch):
    """`s3://<fresh bucket>/rldelta` on the test's S3-compatible server (moto, scripts/setup.d/50-s3.sh),
    with this process's AWS settings (inherited by the processes it starts) pointing s3fs at it: the
    standard variables a deployment sets, a throwaway key pair and no config files. The bucket and
    everything in it are deleted afterwards. Without the server the test skips saying why."""
    endpoint = os.environ.get("RLDELTA_TEST_S3_ENDPOINT", "").strip()
    if not endpoint:
        why = os.environ.get("RLDELTA_TEST_S3_SKIP") or "RLDELTA_TEST_S3_ENDPOINT is not set"
        pytest.skip(f"no S3 server for this test: {why} (run `make test`, or scripts/setup.d/50-s3.sh)")
    s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed (pip install -e '.[test]')")
    for name, value in {
        "AWS_ENDPOINT_URL_S3": endpoint,
        "AWS_ACCESS_KEY_ID": "rldelta-test",
        "AWS_SECRET_ACCESS_KEY": S3_TEST_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }.items():
        monkeypatch.setenv(name, value)
    # fsspec reuses file-system objects by their arguments: one made before these settings would keep its own
    s3fs.S3FileSystem.clear_instance_cache()
    fs = s3fs.S3FileSystem()
    bucket = f"rldelta-test-{uuid.uuid4().hex[:12]}"
    fs.mkdir(bucket)
    yield f"s3://{bucket}/rldelta"
    fs.rm(bucket, recursive=True)
    s3fs.S3FileSystem.clear_instance_cache()


# The secret key the s3_root fixture hands s3fs: tests grep what a run recorded and stored for it.
S3_TEST_SECRET = "rldelta-s3-secret-5f0c2e9b7d"


@pytest.fixture(scope="session")
def demo_world_seed7(tmp_path_factory):
    """The demo world (seed 7, no registry) built once for the tests that check analyses against
    its ground truth: (built world, ground truth dict, its folder). Read it; write only new files."""
    import json

    from rl_assets.demo.world import build_world

    home = tmp_path_factory.mktemp("demo-seed7")
    built = build_world(home, seed=7, registry=False)
    return built, json.loads(built.ground_truth_path.read_text()), home


def pytest_collection_modifyitems(config, items):
    """The longest test files first (tests/support/run_order.py), so the parallel workers finish together."""
    from support.run_order import order

    keys = dict(zip(map(id, items), order([item.nodeid for item in items], config.rootpath), strict=True))
    items.sort(key=lambda item: keys[id(item)])
