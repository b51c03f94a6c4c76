"""One call run in a forked child beside this process, its result (or exception) handed back.

Used by the eval pair's two ingests (rl_assets/assets/traces.py): each side is one Python loop on
one core, so the post-RL side runs in a child while this process ingests the baseline, and a run
on 2 cores waits for the longer side instead of their sum (bench/RESULTS.md, "A lighter run").

Why fork, and when not: a forked child starts with every module this process already imported
and with the hub client as it is (no import cost, no secret passed anywhere), which a spawned
interpreter would pay for again. Forking is only safe when no other Python thread can hold a lock
at that moment, so a ForkedCall forks only when this process has one thread (true of a run through
`dagster asset materialize`, of the run worker the UI launches and of a Celery step); otherwise,
or where fork does not exist, or when RLDELTA_FORKED_CALLS=0, the call runs inline when its result
is asked for, and `how` says which happened and why. The child never touches Dagster's instance,
writes only what the call writes, and leaves with os._exit (no atexit handlers, no flushing of
buffers it shares with this process). Not multiprocessing's fork context: its child runs the hooks
libraries registered with multiprocessing.util.register_after_fork and, on exit, flushes the stdio
buffers it inherited (output the parent then writes again); a ProcessPoolExecutor also adds a
manager thread here and reports a killed child only as a broken pool.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from rl_assets.support.long_lived import freeze_long_lived
from rl_assets.support.process_guard import WATCHDOG, kill_with_parent

ENV_SWITCH = "RLDELTA_FORKED_CALLS"


class ForkedCallError(RuntimeError):
    """The child died without a result (killed, out of memory) or raised what cannot be pickled."""


def fork_refusal() -> str | None:
    """Why a call cannot run in a forked child here, or None when it can."""
    if os.environ.get(ENV_SWITCH, "").strip() == "0":
        return f"{ENV_SWITCH}=0"
    if not hasattr(os, "fork"):
        return "this platform has no fork"
    threads = python_threads()
    if threads > 1:
        return f"this process has {threads} Python threads (forking one could copy a held lock)"
    return None


def python_threads() -> int:
    """Threads running Python in this process, those started with `_thread` (e.g. execnet's, under
    pytest-xdist) included, which threading.active_count() does not see. Not counted: native threads
    of libraries (BLAS, arrow's pool), which reset themselves in a child, and rldelta's own
    die-with-parent watchdog (process_guard.py), which only waits on a pipe and holds no lock."""
    watchdogs = {t.ident for t in threading.enumerate() if t.name == WATCHDOG}
    return sum(1 for ident in sys._current_frames() if ident not in watchdogs)


class ForkedCall:
    """`fn(*args)` started in a child by `start`; `result()` returns its value or raises its exception.

    When fork is refused the call runs inline in `result()`, so the caller's order of work is the
    same either way and only the wall time differs."""

    def __init__(self, fn: Callable[..., Any], *args: Any, label: str = "") -> None:
        self._fn, self._args, self.label = fn, args, label or getattr(fn, "__name__", "call")
        self._pid: int | None = None
        self._read_fd: int | None = None
        refused = fork_refusal()
        self.how = f"inline ({refused})" if refused else "forked child"
        self.forked = refused is None
        if self.forked:
            self._start()

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        freeze_long_lived()  # the child's collector then leaves the shared pages alone (long_lived.py)
        pid = os.fork()
        if pid == 0:  # the child: run, send one pickle, leave without running this process's exit code
            status = 0
            try:
                if kill_with_parent() and os.getppid() != parent:  # a killed run leaves no ingest behind
                    os._exit(1)
                os.close(read_fd)
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # the parent handles Ctrl-C; the child just ends
                payload = _outcome(self._fn, self._args)
                with os.fdopen(write_fd, "wb") as out:
                    out.write(payload)
            except BaseException:  # noqa: BLE001 - nothing may escape a forked child into the parent's code
                status = 70
            finally:
                os._exit(status)
        os.close(write_fd)
        self._pid, self._read_fd = pid, read_fd

    def result(self) -> Any:
        if not self.forked:
            return self._fn(*self._args)
        if self._read_fd is None:
            raise ForkedCallError(f"{self.label}: the result was already taken, or the call was cancelled")
        try:
            with os.fdopen(self._read_fd, "rb") as got:  # read all before waiting: a result may exceed the pipe
                self._read_fd = None
                payload = got.read()
        finally:
            status = self._reap()
        if not payload:
            raise ForkedCallError(f"{self.label}: the child process ended without a result ({_describe(status)})")
        kind, value = pickle.loads(payload)
        if kind == "raised":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the child if it still runs (the caller failed or was interrupted first)."""
        if self._pid is None:
            return
        try:
            os.kill(self._pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        if self._read_fd is not None:
            os.close(self._read_fd)
            self._read_fd = None
        self._reap()

    def _reap(self) -> int:
        pid, self._pid = self._pid, None
        if pid is None:
            return 0
        _, status = os.waitpid(pid, 0)
        return status


def _outcome(fn: Callable[..., Any], args: tuple) -> bytes:
    """The pickled ("returned", value) or ("raised", exception); an exception that does not survive
    pickling is sent as a ForkedCallError carrying its type, message and traceback text."""
    try:
        return pickle.dumps(("returned", fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
        try:
            payload = pickle.dumps(("raised", exc), protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(payload)  # an exception whose __init__ takes other arguments fails here, not in the parent
            return payload
        except Exception:  # noqa: BLE001
            text = "".join(traceback.format_exception(exc))
            return pickle.dumps(("raised", ForkedCallError(f"{type(exc).__name__}: {exc}\n{text}")))


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return f"killed by signal {sig} ({signal.Signals(sig).name})" + (
            ", e.g. by the kernel when out of memory" if sig == signal.SIGKILL else ""
        )
    return f"exit status {os.WEXITSTATUS(status)}"
