"""Step processes die with their run: otherwise a `kill -9` of `dagster asset materialize` leaves the
multiprocess executor's step processes running, committing trace tables ~10 s later for a run that
is already gone.

A process started through `multiprocessing` (the executor's step processes, whatever the start
method) kills itself when the process that started it exits: a watchdog thread waits on the
parent's sentinel (which `multiprocessing` hands every child, forkserver ones included), and on
Linux PR_SET_PDEATHSIG also covers a parent that dies before the thread runs. With the in-process
executor the steps are the run process and die with it anyway. The run process itself (no
multiprocessing parent) is left alone: it must survive its shell under nohup.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1
WATCHDOG = "rldelta-die-with-parent"  # the thread's name: forked_call.py knows it holds no lock
_armed = False


def _watch(parent) -> None:
    parent.join()  # returns when the parent's sentinel closes: it exited
    os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent() -> bool:
    """Arm the guard in a multiprocessing child (once); True when armed."""
    global _armed
    parent = multiprocessing.parent_process()
    if parent is None or _armed:
        return _armed
    _armed = True
    threading.Thread(target=_watch, args=(parent,), name=WATCHDOG, daemon=True).start()
    if kill_with_parent() and os.getppid() == 1:  # the parent died before the signal was armed: writes are void
        os._exit(1)
    return True


def kill_with_parent() -> bool:
    """Linux: have the kernel SIGKILL this process when its parent exits (PR_SET_PDEATHSIG); False
    elsewhere or when refused. The caller checks getppid() after, for a parent already gone."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
