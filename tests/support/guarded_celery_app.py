"""The dagster-celery app, in a worker that may not look into other workers' homes.

tests/services/test_scaleout_celery.py starts each worker with `-A support.guarded_celery_app`. Before the app loads,
a Python audit hook (sys.addaudithook) refuses — with PermissionError — and records every open,
directory listing, copy, rename or removal under the folders named in $RLDELTA_TEST_FORBIDDEN
(os.pathsep-separated: the other worker's home, the coordinator's, the reference run's). Steps run
inside the worker process (solo pool), so a step that reads what another worker left in its home
fails, and the test reads the record ($RLDELTA_TEST_LEAK_LOG). Readers in C++ (pyarrow's own file
system) do not raise audit events: the test also checks that no stored value names such a place.
"""

import os
import sys

EVENTS = {
    "open",
    "os.listdir",
    "os.scandir",
    "shutil.copyfile",
    "shutil.copytree",
    "os.rename",
    "os.remove",
    "os.rmdir",
    "os.mkdir",
    "glob.glob",
}
FORBIDDEN = tuple(
    os.path.abspath(p) + os.sep for p in os.environ.get("RLDELTA_TEST_FORBIDDEN", "").split(os.pathsep) if p
)
LOG = os.environ.get("RLDELTA_TEST_LEAK_LOG", "")


def _paths(event: str, args: tuple):
    for arg in args[:2] if event in ("shutil.copyfile", "shutil.copytree", "os.rename") else args[:1]:
        if isinstance(arg, (str, bytes, os.PathLike)):
            yield os.path.abspath(os.fsdecode(arg))


def _guard(event: str, args: tuple) -> None:
    if event not in EVENTS:
        return
    for path in _paths(event, args):
        if (path + os.sep).startswith(FORBIDDEN):
            if LOG:
                with open(LOG, "a") as log:  # LOG itself is outside every forbidden folder
                    log.write(f"{event} {path}\n")
            raise PermissionError(f"this worker may not touch another worker's home: {event} {path}")


if FORBIDDEN:
    sys.addaudithook(_guard)

from dagster_celery.app import app  # noqa: E402  (after the hook, so every step runs under it)

__all__ = ["app"]
