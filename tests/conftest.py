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
