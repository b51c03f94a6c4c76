"""`make ui`: `dagster dev` on the home instance, with its URL printed and a clean stop.

Started plainly from a shell in the background, `dagster dev` ignores SIGINT (a background job's
default), takes 45 s over SIGTERM, and its `dagster api grpc` code server outlives it. Here
`dagster dev` runs in a session of its own; on SIGINT or SIGTERM this supervisor asks it to stop
the way Ctrl-C does, then terminates and finally kills whatever of its process tree is left, so
every child is gone within STOP_SECONDS. GNU make forwards SIGTERM to this process, so
`kill <make pid>` works as well as Ctrl-C.

A non-interactive shell starts background jobs with SIGINT ignored, and an ignored or blocked signal
is inherited across exec: `dagster dev` would then ignore SIGINT (and Dagster SIGTERM with it), and
every stop would end in SIGKILL with stale gRPC sockets left in the temp folder. So this supervisor
unblocks the stop signals and installs its own handlers *before* starting anything: a caught signal
is reset to its default in a child at exec, whatever state `make ui` was started in.

It also serves the reports folder read-only on 127.0.0.1 (rl_assets/support/report_server.py) and tells the
assets its URL in RLDELTA_REPORTS_URL, unless that is already set (reports published elsewhere).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from rl_assets import settings
from rl_assets.support import report_server
from rl_assets.support.console_log import instance_log_level, keep_console_line

STOP_SECONDS = float(
    os.environ.get("RLDELTA_UI_STOP_SECONDS") or 8.0
)  # SIGINT, SIGTERM at half time, SIGKILL: under the promised 10 s
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _children() -> dict[int, tuple[int, int, int]]:
    """pid -> (parent pid, session id, start time) of every process, from /proc (empty where there is none)."""
    out = {}
    for entry in Path("/proc").glob("[0-9]*"):
        fields = _stat(entry.name)
        if fields:  # else gone meanwhile
            out[int(entry.name)] = (int(fields[1]), int(fields[3]), int(fields[19]))
    return out


def process_tree(root: int) -> dict[int, int]:
    """`root` and every live descendant, plus anything still in its session (orphans reparented to init),
    as pid -> start time: a pid the kernel hands to a new process later is not taken for the old one."""
    table = _children()
    tree, grew = {root} & set(table), True
    while grew:
        new = {pid for pid, (ppid, sid, _) in table.items() if pid not in tree and (ppid in tree or sid == root)}
        tree |= new
        grew = bool(new)
    return {pid: table[pid][2] for pid in tree}


def _signal_all(pids: set[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def stop(proc: subprocess.Popen, seconds: float = STOP_SECONDS) -> dict[int, str]:
    """Stop `proc` and its whole tree; returns the processes that needed SIGKILL (pid -> command line)."""
    known = process_tree(proc.pid)
    # Ctrl-C to dagster dev alone: it stops its webserver and daemon through their shutdown pipes,
    # then its code server, in order. On a loaded machine that takes longer than the promised 10 s
    # (19 s measured with 8 test suites sharing 2 cores): then the escalation below ends it.
    _signal_all({proc.pid}, signal.SIGINT)
    deadline, escalated = time.monotonic() + seconds, False
    while time.monotonic() < deadline:
        proc.poll()
        known |= process_tree(proc.pid)  # a code server started during shutdown is caught too
        alive = {p for p, started in known.items() if is_running(p, started)}
        if not alive:
            return {}
        if not escalated and time.monotonic() > deadline - seconds / 2:
            _signal_all(alive, signal.SIGTERM)
            escalated = True
        time.sleep(0.2)
    known |= process_tree(proc.pid)
    alive = {p for p, started in known.items() if is_running(p, started)}
    args = {p: _cmdline(p) for p in alive}
    _signal_all(alive, signal.SIGKILL)
    proc.wait()
    for argv in args.values():  # a killed gRPC server cannot remove its socket file: do it for it
        if "--socket" in argv[:-1]:
            Path(argv[argv.index("--socket") + 1]).unlink(missing_ok=True)
    return {p: " ".join(argv)[:120] for p, argv in args.items()}


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return [f"pid {pid}"]


def is_running(pid: int, started: int | None = None) -> bool:
    """Whether `pid` is a live process — the one that began at `started` (a process_tree value) if given,
    so a pid reused by an unrelated process after ours exited is never signalled."""
    fields = _stat(pid)
    if fields is None:
        try:
            os.kill(pid, 0)  # no /proc (macOS): existence only
        except ProcessLookupError:
            return False
        return True
    if started is not None and int(fields[19]) != started:
        return False
    return fields[0] != "Z"  # a zombie has exited; its parent just has not reaped it yet


def _reports_url(port: str) -> tuple[str, ThreadingHTTPServer | None]:
    """Where the reports folder is served. RLDELTA_REPORTS_URL naming another host: published there,
    nothing started. Naming this machine (127.0.0.1 / localhost, e.g. set for `rldelta demo` too, so
    its runs record the same links): served read-only on that port. Unset: served at
    $RLDELTA_REPORTS_PORT (default the UI port + 1, so links stored in metadata stay valid across
    restarts; any free port if that one is taken)."""
    configured = os.environ.get("RLDELTA_REPORTS_URL", "").strip().rstrip("/")
    where = urlsplit(configured)
    if configured and where.hostname not in ("127.0.0.1", "localhost"):
        return configured, None
    if configured:
        return configured, report_server.start(settings.reports_root(), port=where.port or 80)
    wanted = report_server.make_ui_port(port)  # where `make demo` / `rldelta analyze` recorded their links
    try:
        server = report_server.start(settings.reports_root(), port=wanted)
    except OSError as exc:
        server = report_server.start(settings.reports_root(), port=0)
        print(
            f"reports: port {wanted} is taken ({exc.strerror}); serving on {report_server.base_url(server)} instead."
            f" Links recorded by `make demo` / `rldelta analyze` point at http://127.0.0.1:{wanted} and will not"
            " open: free that port, or set RLDELTA_REPORTS_PORT for both.",
            file=sys.stderr,
            flush=True,
        )
    return report_server.base_url(server), server


def _relay(stream, level: str, out=None) -> None:
    """Copy one of `dagster dev`'s output streams (its daemon's log included) to `out` (our stderr),
    minus what is quiet at `level`."""
    out = out or sys.stderr.buffer
    for raw in iter(stream.readline, b""):
        if keep_console_line(raw.decode(errors="replace"), level):
            out.write(raw)
            out.flush()


def main(argv: list[str] | None = None) -> int:
    stopping: list[int] = []

    def on_signal(signum, _frame):
        stopping.append(signum)

    # Before any child starts: caught signals revert to their defaults at exec, ignored ones would not.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(STOP_SIGNALS))
    for sig in STOP_SIGNALS:
        signal.signal(sig, on_signal)
    host = os.environ.get("RLDELTA_UI_HOST", "127.0.0.1")
    port = os.environ.get("RLDELTA_UI_PORT", "3000")
    url = f"http://{host}:{port}"
    try:
        reports_url, server = _reports_url(port)
    except report_server.ReportsRootError as exc:
        print(f"rldelta UI not started: {exc}", file=sys.stderr, flush=True)
        return 2
    env = {
        **os.environ,
        "RLDELTA_UI_URL": os.environ.get("RLDELTA_UI_URL") or url,  # INDEX.md links runs here
        "RLDELTA_REPORTS_URL": reports_url,
    }  # asset metadata links reports here
    dagster = Path(sys.executable).with_name("dagster")
    cmd = [str(dagster), "dev", "-w", "workspace.yaml", "-h", host, "-p", port, *(argv or [])]
    level = instance_log_level(os.environ.get("DAGSTER_HOME", "."))
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    relays = [
        threading.Thread(target=_relay, args=(src, level, dst), daemon=True)
        for src, dst in ((proc.stdout, sys.stdout.buffer), (proc.stderr, sys.stderr.buffer))
    ]
    for relay in relays:
        relay.start()
    print(f"rldelta UI: {url}  (Dagster home {os.environ.get('DAGSTER_HOME', '?')})", flush=True)
    print(f"reports: {reports_url}" + (" (read-only, this machine only)" if server else ""), flush=True)
    print(f"stop it with Ctrl-C, or `kill {os.getpid()}` (SIGINT/SIGTERM stop every child process)", flush=True)
    try:
        while proc.poll() is None and not stopping:
            time.sleep(0.2)
        if not stopping:
            return proc.returncode  # dagster dev ended by itself (e.g. the port was taken): its message says why
        killed = stop(proc)
    finally:
        if server is not None:
            server.shutdown()
        for relay in relays:
            relay.join(timeout=2)  # the rest of dagster dev's shutdown messages
    print(
        f"rldelta UI stopped ({signal.Signals(stopping[0]).name})"
        + (
            f"; killed {len(killed)} process(es) that ignored the stop request: {sorted(killed.values())}"
            if killed
            else ""
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
