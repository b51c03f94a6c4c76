"""Celery worker processes for the distributed-run test: started with their own environment,
waited for until they consume the queue, and always killed (their whole process group) on exit."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def write_celery_config(folder: Path, broker: str, backend: str) -> Path:
    """`dagster_celery_config.py` — the module dagster_celery.app reads the broker from (what
    `dagster-celery worker start -y` would write into the instance folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dagster_celery_config.py").write_text(
        f"broker_url = {broker!r}\nresult_backend = {backend!r}\nworker_prefetch_multiplier = 1\n"
    )
    return folder


def _stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM to every worker's process group at once (each takes a second or two to stop), SIGKILL to
    those still running 10 s later."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        running = [proc for proc in procs if proc.poll() is None]
        for proc in running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
        deadline = time.monotonic() + 10
        for proc in running:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.0, deadline - time.monotonic()))


@contextlib.contextmanager
def celery_workers(
    envs: dict[str, dict[str, str]],
    config_dir: Path | dict[str, Path],
    logs: Path,
    ready_timeout: float = 90,
    app: str = "dagster_celery.app",
    meanwhile=None,
):
    """One `celery -A <app> worker` per name in `envs` (one task at a time each), with that
    environment on top of this one and the celery config module from `config_dir` (one folder for all,
    or {name: folder}); yields {name: log path} once every worker consumes the queue.
    `meanwhile()` runs after the workers are started and before they are waited for (their start-up
    takes seconds of import). Killed however the block ends."""
    procs: dict[str, subprocess.Popen] = {}
    log_paths = {name: logs / f"worker-{name}.log" for name in envs}
    try:
        for name, extra in envs.items():
            config = config_dir[name] if isinstance(config_dir, dict) else config_dir
            env = {
                **os.environ,
                **extra,
                "PYTHONPATH": os.pathsep.join([str(config), str(TESTS), str(TESTS.parent)]),
            }
            cmd = [
                sys.executable,
                "-m",
                "celery",
                "-A",
                app,
                "worker",
                "--pool",
                "solo",
                "-n",
                f"{name}@%h",
                "-Q",
                "dagster",
                "--without-gossip",
                "--without-mingle",
                "-l",
                "INFO",
                "--logfile",
                str(log_paths[name]),
            ]
            procs[name] = subprocess.Popen(
                cmd,
                env=env,
                cwd=extra.get("RLDELTA_HOME"),
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
        if meanwhile:
            meanwhile()
        deadline = time.monotonic() + ready_timeout
        for name, proc in procs.items():
            while " ready." not in (log_paths[name].read_text() if log_paths[name].exists() else ""):
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = log_paths[name].read_text()[-2000:] if log_paths[name].exists() else "(no log)"
                    raise RuntimeError(f"celery worker {name} did not come up (exit {proc.poll()}): {tail}")
                time.sleep(0.2)
        yield log_paths
    finally:
        _stop(list(procs.values()))
