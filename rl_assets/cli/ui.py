"""`make ui`: `dagster dev` on the home instance, with its URL printed and a clean stop.

Started from a shell in the background, `dagster dev` used to ignore SIGINT (a background job's
default) and take 45 s over SIGTERM, and its `dagster api grpc` code server outlived it. Here
`dagster dev` runs in a session of its own; on SIGINT or SIGTERM this supervisor asks it to stop
the way Ctrl-C does, then terminates and finally kills whatever of its process tree is left, so
every child is gone within STOP_SECONDS. GNU make forwards SIGTERM to this process, so
`kill <make pid>` works as well as Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

STOP_SECONDS = 8.0  # SIGINT, then SIGTERM at half time, then SIGKILL: under the promised 10 s


def _children() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, session id) of every process, from /proc (empty where there is none)."""
    out = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        out[int(entry.name)] = (int(fields[1]), int(fields[3]))
    return out


def process_tree(root: int) -> set[int]:
    """`root` and every live descendant, plus anything still in its session (orphans reparented to init)."""
    table = _children()
    tree, grew = {root} & set(table), True
    while grew:
        new = {pid for pid, (ppid, sid) in table.items() if pid not in tree and (ppid in tree or sid == root)}
        tree |= new
        grew = bool(new)
    return tree


def _signal_all(pids: set[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def stop(proc: subprocess.Popen, seconds: float = STOP_SECONDS) -> set[int]:
    """Stop `proc` and its whole tree; returns the pids that needed SIGKILL (for the log line)."""
    known = process_tree(proc.pid)
    _signal_all(known, signal.SIGINT)  # what Ctrl-C sends: dagster dev shuts its children down itself
    deadline, escalated = time.monotonic() + seconds, False
    while time.monotonic() < deadline:
        proc.poll()
        known |= process_tree(proc.pid)  # a code server started during shutdown is caught too
        alive = {p for p in known if is_running(p)}
        if not alive:
            return set()
        if not escalated and time.monotonic() > deadline - seconds / 2:
            _signal_all(alive, signal.SIGTERM)
            escalated = True
        time.sleep(0.2)
    alive = {p for p in known | process_tree(proc.pid) if is_running(p)}
    _signal_all(alive, signal.SIGKILL)
    proc.wait()
    return alive


def is_running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)  # no /proc (macOS): existence only
        except ProcessLookupError:
            return False
        return True
    return state != "Z"  # a zombie has exited; its parent just has not reaped it yet


def main(argv: list[str] | None = None) -> int:
    host = os.environ.get("RLDELTA_UI_HOST", "127.0.0.1")
    port = os.environ.get("RLDELTA_UI_PORT", "3000")
    url = f"http://{host}:{port}"
    env = {**os.environ, "RLDELTA_UI_URL": os.environ.get("RLDELTA_UI_URL") or url}  # INDEX.md links runs here
    dagster = Path(sys.executable).with_name("dagster")
    cmd = [str(dagster), "dev", "-w", "workspace.yaml", "-h", host, "-p", port, *(argv or [])]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    print(f"rldelta UI: {url}  (Dagster home {os.environ.get('DAGSTER_HOME', '?')})", flush=True)
    print(f"stop it with Ctrl-C, or `kill {os.getpid()}` (SIGINT/SIGTERM stop every child process)", flush=True)
    stopping: list[int] = []

    def on_signal(signum, _frame):
        stopping.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    while proc.poll() is None and not stopping:
        time.sleep(0.2)
    if not stopping:
        return proc.returncode  # dagster dev ended by itself (e.g. the port was taken): its message says why
    killed = stop(proc)
    print(f"rldelta UI stopped ({signal.Signals(stopping[0]).name})"
          + (f"; killed {len(killed)} process(es) that ignored the stop request" if killed else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
