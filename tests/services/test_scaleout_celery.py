"""Scale-out, proven: `analyze_model` on two Celery workers (Redis broker, PostgreSQL instance, an S3
bucket as the store) writes the same reports as a single-process run on a local store, same demo world.

Each worker is a machine of its own: its own working directory and RLDELTA_HOME (caches, reports), its
own DAGSTER_HOME and celery config; they share only the bucket (RLDELTA_STORAGE=s3://…, on moto's
S3 server through s3fs), the Dagster instance in PostgreSQL and the Redis broker. The demo's sources
are read the way production reads them: the registry from PostgreSQL, the hub over HTTP through
huggingface_hub (the loopback Hub, tests/support/hub_server.py, serving the demo's hub folder; the
reference run reads that folder). Both workers sit on one disk, so "share only" is enforced, not
assumed: each worker refuses (and records) any Python-level file access under the other's home, the
coordinator's folders, the reference run's and the hub folder (tests/support/guarded_celery_app.py),
and no object a step stored and no metadata it recorded may name a place in a worker's home other
than its report folder. Needs RLDELTA_TEST_REDIS_URL (scripts/setup.d/40-redis.sh),
RLDELTA_TEST_PG_URL (20-postgres.sh) and RLDELTA_TEST_S3_ENDPOINT (50-s3.sh), as under `make test`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg
import pytest

from rl_assets.cli import QUIET
from rl_assets.demo.constants import ALPHA
from rl_assets.partitions import slug

pytest.importorskip("dagster_celery", reason="dagster-celery is not installed (pip install -e '.[test]')")

from support import scaleout_job  # noqa: E402
from support.celery_workers import celery_workers, write_celery_config  # noqa: E402

# dagster-celery registers its step task again for every step it submits; celery warns each time.
pytestmark = pytest.mark.filterwarnings("ignore:Task name 'execute_plan' is already registered")

MODEL = ALPHA
# Fields that name a run, a moment or a place on disk: they differ between any two runs.
VOLATILE_KEYS = {"run_id", "generated_at", "created_at", "timestamp", "written_at"}
APP = (
    "support.guarded_celery_app"  # tests/support/guarded_celery_app.py: dagster-celery's app behind a file-access guard
)


@pytest.fixture
def redis_url():
    url = os.environ.get("RLDELTA_TEST_REDIS_URL", "").strip()
    if not url:
        why = os.environ.get("RLDELTA_TEST_REDIS_SKIP") or "RLDELTA_TEST_REDIS_URL is not set"
        pytest.skip(f"no Redis broker for this test: {why} (run `make test`, or set RLDELTA_TEST_REDIS_URL)")
    import redis

    client = redis.Redis.from_url(url)
    client.flushdb()  # no task left over from an earlier session
    client.close()
    return url


def reports(roots: list[Path], places: list[Path]) -> dict[str, object]:
    """Every JSON, markdown and CSV report of MODEL under `roots`, by path inside the model's report
    folder; JSON with run ids and timestamps taken out, all with the test's folders taken out."""
    found = {}
    for root in roots:
        folder = root / slug(MODEL)
        # INDEX.md (now analyze_model's last step) is run ids and times by nature; tests/assets/test_report_index.py
        # covers it
        for path in sorted(
            p for p in folder.rglob("*") if p.suffix in {".json", ".md", ".csv"} and p.name != "INDEX.md"
        ):
            text = path.read_text()
            for place in places:
                text = text.replace(str(place), "<dir>")
            found[str(path.relative_to(folder))] = _strip(json.loads(text)) if path.suffix == ".json" else text
    return found


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


@pytest.fixture
def demo_hub(tmp_path):
    """The loopback Hub (tests/support/hub_server.py) serving `<tmp>/sources/hub`, where the test builds the demo."""
    from support.hub_server import HubServer

    (tmp_path / "sources" / "hub").mkdir(parents=True)
    with HubServer(tmp_path / "sources" / "hub") as server:
        yield server


def test_analyze_model_on_two_celery_workers_matches_one_process(
    tmp_path, monkeypatch, redis_url, pg_url, s3_root, demo_hub, partition_instance
):
    from rl_assets.definitions import defs
    from rl_assets.demo import build_world

    single = tmp_path / "single"
    for name, value in {
        "RLDELTA_HUB_DIR": str(tmp_path / "sources" / "hub"),
        "RLDELTA_REGISTRY_URL": pg_url,
        "RLDELTA_HOME": str(single),
        "RLDELTA_STORAGE": str(single / "storage"),
    }.items():
        monkeypatch.setenv(name, value)
    build_world(None, scale=0.25)

    # The same job on two "machines": each worker has its own home (its working directory, caches,
    # reports), its own DAGSTER_HOME and celery config; they share the bucket (s3_root: the AWS_*
    # settings are in this process's environment), PostgreSQL and Redis, and read the demo's sources
    # from the registry and the Hub over HTTP; no local folder is shared. The coordinator's instance
    # folder is a third place neither may touch: the steps' instance comes from the coordinator (its
    # instance ref), so its dagster.yaml turns off local compute logs, which would land in that folder.
    homes = {name: tmp_path / f"home-{name}" for name in ("a", "b")}
    pg_dagster = pg_url.replace("postgresql://", "postgresql+psycopg2://", 1)  # the driver installed
    instance_yaml = (
        f"storage:\n  postgres:\n    postgres_url: {pg_dagster}\ntelemetry:\n  enabled: false\n"
        "compute_logs:\n  module: dagster._core.storage.noop_compute_log_manager\n  class: NoOpComputeLogManager\n"
    )
    backend = redis_url.rsplit("/", 1)[0] + "/1"
    coordinator = tmp_path / "coordinator"
    for machine in [coordinator, *homes.values()]:
        (machine / "dagster").mkdir(parents=True)
        (machine / "dagster" / "dagster.yaml").write_text(instance_yaml)
    configs = {name: write_celery_config(home / "celery-config", redis_url, backend) for name, home in homes.items()}
    leak_log = tmp_path / "worker-leaks.log"
    others = lambda name: [tmp_path / "sources", single, coordinator, *(h for n, h in homes.items() if n != name)]  # noqa: E731
    envs = {
        name: {
            # the sources as production reads them: the registry in PostgreSQL, the hub over HTTP from
            # the Hub (the loopback one, through huggingface_hub); the reference run reads the hub's folder
            "RLDELTA_REGISTRY_URL": pg_url,
            "RLDELTA_HUB": "hf",
            "HF_ENDPOINT": demo_hub.url,
            "NO_COLOR": "1",  # huggingface_hub would otherwise ask the public Hub for its colours
            "RLDELTA_HOME": str(home),
            "RLDELTA_STORAGE": s3_root,
            "DAGSTER_HOME": str(home / "dagster"),
            "RLDELTA_TEST_LEAK_LOG": str(leak_log),
            "RLDELTA_TEST_FORBIDDEN": os.pathsep.join(map(str, others(name))),
        }
        for name, home in homes.items()
    }
    run_config = {**QUIET, "execution": {"config": {"broker": redis_url, "backend": backend}}}
    # dagster-celery's coordinating loop sleeps a second between looks at its tasks, and most steps here
    # take less: a tenth keeps the run from waiting on the clock (one Redis read per pending step a look).
    from dagster_celery import core_execution_loop

    monkeypatch.setattr(core_execution_loop, "TICK_SECONDS", 0.1)

    def reference_run():
        """One process, one home, a local store: the reports the workers' run must match (run while they start up)."""
        result = defs.resolve_job_def("analyze_model").execute_in_process(
            instance=partition_instance(MODEL), partition_key=MODEL, run_config=QUIET, raise_on_error=False
        )
        assert result.success, "the single-process reference run failed"
        # from here this process only coordinates: a home of its own (left empty), the workers' bucket
        monkeypatch.setenv("RLDELTA_HOME", str(coordinator))
        monkeypatch.setenv("RLDELTA_STORAGE", s3_root)

    with (
        celery_workers(envs, configs, tmp_path, app=APP, meanwhile=reference_run) as logs,
        dg.DagsterInstance.from_config(str(coordinator / "dagster")) as instance,
    ):
        instance.add_dynamic_partitions("models", [MODEL])
        job = dg.reconstructable(scaleout_job.analyze_model_on_celery)
        with dg.execute_job(
            job, instance, run_config=run_config, tags={"dagster/partition": MODEL}, raise_on_error=False
        ) as distributed:
            failures = [
                f"{e.step_key}: {e.event_specific_data.error.message.strip()}"
                for e in distributed.all_events
                if e.event_type == dg.DagsterEventType.STEP_FAILURE
            ]
            assert distributed.success, "\n".join(failures) or "the distributed run failed"
            workers = {
                e.engine_event_data.metadata["Celery worker"].value.split("@")[0]
                for e in distributed.all_events
                if e.event_type == dg.DagsterEventType.ENGINE_EVENT
                and e.engine_event_data
                and "Celery worker" in e.engine_event_data.metadata
            }
            recorded = [
                (e.step_key, e.event_specific_data.materialization.metadata)
                for e in distributed.all_events
                if e.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION
            ]
    assert workers == set(homes), f"steps ran on {sorted(workers)}; worker logs in {sorted(map(str, logs.values()))}"
    assert any("/resolve/" in path for path in demo_hub.paths("GET")), "the workers downloaded nothing from the Hub"

    # The steps handed each other only what lives in the bucket: no worker touched another's home or
    # the coordinator's folders (the guard's log), no stored object names a home, no recorded metadata
    # points into one; and every hand-over did go through the bucket (no local storage folder anywhere).
    stored = _stored_json(s3_root)
    assert {"tables", "training_metrics", "behavioral_delta"} <= {key.split("/")[0] for key in stored}, sorted(stored)
    assert not [home for home in [coordinator, *homes.values()] if (home / "storage").exists()]
    assert recorded, "the distributed run recorded no materialization to inspect"
    leaks = sorted(
        _home_paths(stored, homes)
        | _metadata_home_paths(recorded, homes)
        | set(leak_log.read_text().splitlines() if leak_log.exists() else [])
    )
    assert leaks == [], "steps handed each other places outside the shared storage:\n" + "\n".join(leaks)
    # the bucket's secret key reached s3fs through the environment only: no object, metadata or log holds it
    secret = os.environ["AWS_SECRET_ACCESS_KEY"]
    holding = [key for key, text in stored.items() if secret in text]
    holding += [f"{step} metadata" for step, metadata in recorded if secret in repr(metadata)]
    holding += [str(log) for log in logs.values() if log.exists() and secret in log.read_text()]
    assert holding == [], f"the S3 secret key was written to {holding}"

    # Reports are outputs for people, written into the report folder of whichever worker ran the step.
    places = [single / "storage", s3_root, single, *homes.values()]
    expected = reports([single / "reports"], places)
    got = reports([home / "reports" for home in homes.values()], places)
    assert len(expected) >= 10, f"the reference run wrote too few reports: {sorted(expected)}"
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name


def _stored_json(root: str) -> dict[str, str]:
    """The text of every JSON object under the bucket root (values, table stamps), by key inside it."""
    import fsspec

    fs, base = fsspec.core.url_to_fs(root)
    fs.invalidate_cache()
    return {path[len(base) + 1 :]: fs.cat_file(path).decode() for path in fs.find(base) if path.endswith(".json")}


def _strings(value, key=""):
    """(field, string) for every string inside a JSON-like value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif isinstance(value, str):
        yield key, value


def _in_home(value: str, homes: dict[str, Path]) -> str | None:
    """`$RLDELTA_HOME/<path inside>` when `value` names a place in a worker's home (anywhere in the string)."""
    for home in homes.values():
        at = value.find(str(home) + os.sep)
        if at >= 0:
            inside = value[at + len(str(home)) + 1 :].split()[0] if value[at:].strip() else ""
            return "$RLDELTA_HOME/" + inside.replace(slug(MODEL), "<model>")
    return None


def _home_paths(stored: dict[str, str], homes: dict[str, Path]) -> set[str]:
    """'<stored object>.<field> -> $RLDELTA_HOME/…' for every string in a stored JSON object (values,
    table stamps) that names a place in a worker's home: a hand-over must not point into one machine's
    folder, report folders included (reports are outputs, never read back)."""
    found = set()
    for key_inside, text in stored.items():
        for key, value in _strings(json.loads(text)):
            if (inside := _in_home(value, homes)) is not None:
                found.add(f"{key_inside.rsplit('/', 1)[0]}.{key} -> {inside}")
    return found


def _metadata_home_paths(recorded: list, homes: dict[str, Path]) -> set[str]:
    """'<step> metadata <key> -> $RLDELTA_HOME/…' for recorded metadata naming a place in a worker's home
    other than its report folder (metadata links people to report files; anything else recorded there
    is readable by later steps through the instance, i.e. a hand-over)."""
    found = set()
    for step, metadata in recorded:
        for key, entry in metadata.items():
            raw = getattr(entry, "path", None) or getattr(entry, "text", None) or getattr(entry, "data", None)
            for _, value in _strings(raw if isinstance(raw, (dict, list)) else str(raw or "")):
                inside = _in_home(value, homes)
                if inside is not None and not inside.startswith("$RLDELTA_HOME/reports/"):
                    found.add(f"{step} metadata {key} -> {inside}")
    return found


def test_the_worker_guard_refuses_and_records_the_other_home(tmp_path):
    """The guard the distributed run relies on does bite: a read under a forbidden home fails and is logged."""
    import subprocess
    import sys

    other, log = tmp_path / "home-b", tmp_path / "leaks.log"
    (other / "storage").mkdir(parents=True)
    (other / "storage" / "t.json").write_text("{}")
    code = (
        "import support.guarded_celery_app, os\nopen(os.path.join(os.environ['OTHER'], 'storage', 't.json')).read()\n"
    )
    env = {
        **os.environ,
        "OTHER": str(other),
        "RLDELTA_TEST_FORBIDDEN": str(other),
        "RLDELTA_TEST_LEAK_LOG": str(log),
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode != 0 and "PermissionError" in done.stderr, done.stderr[-2000:]
    assert log.read_text().splitlines() == [f"open {other / 'storage' / 't.json'}"]
