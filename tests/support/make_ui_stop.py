"""The body of the `make ui` shutdown tests (tests/ui/test_ui_shutdown*.py, one case per file so
the parallel workers run them side by side).

`make ui` prints its URL and how to stop it, and SIGTERM (to make) or Ctrl-C (to the terminal's
process group) stops it with every child, `dagster api grpc` included, cleanly (no SIGKILL needed, no
gRPC socket file left in the temp folder), whether it was started from a terminal or the way a
non-interactive shell starts a background job (`bash -c 'make ui &'`: SIGINT and SIGQUIT ignored).

The supervisor escalates to SIGKILL after STOP_SECONDS (8 s, so an idle machine sees every child gone
within the promised 10 s); the test waits up to GRACE seconds so that a loaded CI machine, where the
escalation itself can be starved, does not turn a correct shutdown into a failure (timings belong to
bench/, not to tests)."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from rl_assets.cli.ui import is_running, process_tree
from support.webserver import free_port, wait_for_graph

ROOT = Path(__file__).resolve().parents[2]
GRACE = 30


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _as_from_a_shell() -> None:
    """Start make with the signal state a user's shell gives it. Ignored and blocked signals are
    inherited across exec, and make keeps SIGTERM ignored if it starts that way (it then never forwards
    it): the long test process can carry such state from a library, which no user's terminal has."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})


def _as_a_background_job() -> None:
    """What `bash -c 'make ui &'` (a script, nohup, CI) gives make: SIGINT and SIGQUIT ignored."""
    _as_from_a_shell()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


def _signal_state(pid: int) -> str:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "(gone)"
    return " ".join(ln.replace("\t", "") for ln in lines if ln.startswith(("SigBlk", "SigIgn", "SigCgt")))


# what `dagster dev` runs once it is up: its code server (behind a proxy), the webserver and the daemon
_DAGSTER_DEV = (" api grpc", " code-server start", "dagster_webserver", "dagster._daemon")


def _whole_tree(pid: int, seconds: float = 10) -> dict[int, int]:
    """`pid`'s process tree once every process of `dagster dev` is in it (at most `seconds` later): the
    daemon may come up a moment after the webserver answers, and a tree read too early would miss it."""
    deadline = time.monotonic() + seconds
    while True:
        tree = process_tree(pid)
        lines = [_cmdline(p) for p in tree]
        if time.monotonic() > deadline or all(any(part in line for line in lines) for part in _DAGSTER_DEV):
            return tree
        time.sleep(0.1)


# budget: the supervisor's RLDELTA_UI_STOP_SECONDS. With a long one, "clean" means nothing needed SIGKILL:
# Dagster's orderly shutdown takes 2-19 s here depending on load, and a `dagster dev` that inherited
# an ignored SIGINT ignores SIGTERM too, so it is killed whatever the budget. With the default (8 s,
# the promised 10 s), a loaded machine may need the SIGKILL: then nothing may be left either.
def check_make_ui_stops(tmp_path: Path, how: str, started: str, budget: int | None) -> None:
    """Start `make ui` as a user would (`started`: "terminal" or "background"), stop it `how`
    ("sigterm-to-make" or "ctrl-c-to-group") and check that every child is gone, cleanly when `budget`."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to see the process tree")
    port = free_port()
    home = tmp_path / "home"
    env = {
        **os.environ,
        "RLDELTA_HOME": str(home),
        "DAGSTER_HOME": str(home / "dagster"),
        "RLDELTA_UI_PORT": str(port),
        "RLDELTA_REPORTS_PORT": str(free_port()),
        "RLDELTA_WATCH_AUTHORS": "no-such-author",
        "TMPDIR": str(tmp_path / "tmp"),
        "RLDELTA_UI_STOP_SECONDS": str(budget or ""),
    }
    (tmp_path / "tmp").mkdir()  # gRPC socket files are made here: a clean stop removes them
    for name in ("RLDELTA_UI_URL", "RLDELTA_REPORTS_URL"):
        env.pop(name, None)
    # -o: never reinstall from inside a test (the suite's own `make test` installed already)
    make = subprocess.Popen(
        ["make", "--no-print-directory", "-o", ".venv/.installed", "ui"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        preexec_fn=_as_from_a_shell if started == "terminal" else _as_a_background_job,
    )
    tree: dict[int, int] = {}  # pid -> start time (rl_assets.cli.ui.process_tree)
    try:
        printed = []
        for line in make.stdout:
            printed.append(line)
            if "stop it with" in line:
                break
        text = "".join(printed)
        assert f"http://127.0.0.1:{port}" in text and "Ctrl-C" in text, text
        reports = f"reports: http://127.0.0.1:{env['RLDELTA_REPORTS_PORT']}"
        assert reports in text, text
        assert wait_for_graph(port), "the webserver did not serve the asset graph within 180 s"
        tree = _whole_tree(make.pid)
        assert any(" api grpc" in _cmdline(p) for p in tree), [_cmdline(p) for p in tree]

        make_signals = _signal_state(make.pid)  # for the failure message
        if how == "sigterm-to-make":
            make.send_signal(signal.SIGTERM)
        else:
            os.killpg(make.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
        deadline = time.monotonic() + GRACE + (budget or 0)
        while time.monotonic() < deadline and {p for p, t in tree.items() if is_running(p, t) and p != make.pid}:
            time.sleep(0.25)
            make.poll()
        left = {p: _cmdline(p) for p, t in tree.items() if is_running(p, t) and p != make.pid}
        assert not left, f"still running {GRACE} s after {how} (make: {make_signals}): {left}"
        make.wait(timeout=5)
        said = make.stdout.read()
        assert "rldelta UI stopped" in said, said
        if budget:
            assert "killed" not in said, f"not a clean stop (make: {make_signals}): {said[-3000:]}"
            assert not list((tmp_path / "tmp").rglob("*")), (
                f"left in the temp folder: {list((tmp_path / 'tmp').rglob('*'))}"
            )
        sockets = [p for p in (tmp_path / "tmp").rglob("*") if p.is_socket()]
        assert not sockets, f"gRPC socket files left: {sockets}"
        with pytest.raises(OSError):  # the reports server stopped with the UI
            socket.create_connection(("127.0.0.1", int(env["RLDELTA_REPORTS_PORT"])), timeout=2).close()
    finally:
        for pid, started in tree.items():
            if is_running(pid, started):
                os.kill(pid, signal.SIGKILL)
        if make.poll() is None:
            make.kill()
            make.wait()
