"""rl_assets/support/forked_call.py: a call run in a forked child hands back its value or its exception,
a dead child is an error naming how it died, and the call runs inline wherever forking is unsafe.

The cases that fork run in a fresh spawned interpreter: a pytest-xdist worker has an execnet thread
(and earlier tests may have left an fsspec thread), where ForkedCall rightly refuses to fork."""

import multiprocessing
import os
import signal
import threading
import time

import pytest

from resources.hub.types import RepoNotFoundError
from rl_assets.ingest.report import IngestError
from rl_assets.support.forked_call import ENV_SWITCH, ForkedCall, ForkedCallError, fork_refusal


def _pid_and(value):
    return os.getpid(), value


def _raise(exc):
    raise exc


def _die():
    os.kill(os.getpid(), signal.SIGKILL)


class _Unpicklable(Exception):
    def __init__(self, a, b):  # pickling passes only args: rebuilding it fails
        super().__init__(f"{a}/{b}")


def _cases() -> dict:
    """Run in a fresh process (one Python thread): what each forked call gave, as plain values."""
    assert fork_refusal() is None, fork_refusal()
    out: dict = {}
    call = ForkedCall(_pid_and, {"rows": 3})
    out["how"] = call.how
    pid, out["value"] = call.result()
    out["other_process"] = pid != os.getpid()
    try:
        call.result()
    except ForkedCallError as exc:
        out["second_result"] = str(exc)
    big = "x" * (4 << 20)  # 4 MiB: the child blocks on the pipe until the parent reads
    out["big_intact"] = ForkedCall(lambda: big).result() == big
    raised = []
    for exc in (IngestError("/data/a.jsonl: row 3: bad"), RepoNotFoundError("org/x: gone"), FileNotFoundError(2, "no")):
        try:
            ForkedCall(_raise, exc).result()
        except Exception as got:  # noqa: BLE001 - compared below
            raised.append((type(got) is type(exc), str(got) == str(exc)))
    out["raised"] = raised
    for name, fn, args in (("unpicklable", _raise, (_Unpicklable(1, 2),)), ("killed", _die, ())):
        try:
            ForkedCall(fn, *args, label="post_rl_traces org/m").result()
        except ForkedCallError as exc:
            out[name] = str(exc)
    call = ForkedCall(time.sleep, 60)
    started = time.monotonic()
    call.cancel()
    call.cancel()  # twice is harmless
    out["cancel_s"] = time.monotonic() - started
    return out


def _in_fresh_process(fn):
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn)


@pytest.fixture(scope="module")
def cases():
    return _in_fresh_process(_cases)


def test_the_value_comes_back_from_another_process_once(cases):
    assert cases["how"] == "forked child" and cases["other_process"] and cases["value"] == {"rows": 3}
    assert "already taken" in cases["second_result"]  # never quietly run a second time in the parent


def test_a_result_larger_than_the_pipe_is_read_whole(cases):
    assert cases["big_intact"]


def test_the_childs_exception_is_raised_with_its_type_and_message(cases):
    assert cases["raised"] == [(True, True)] * 3


def test_an_exception_that_cannot_travel_arrives_as_its_text(cases):
    assert "_Unpicklable: 1/2" in cases["unpicklable"]


def test_a_killed_child_is_an_error_naming_the_signal(cases):
    assert cases["killed"].startswith("post_rl_traces org/m: the child process ended without a result")
    assert "killed by signal 9 (SIGKILL)" in cases["killed"]


def test_cancel_stops_a_running_child(cases):
    assert cases["cancel_s"] < 10


def test_with_another_thread_alive_the_call_runs_inline():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        call = ForkedCall(_pid_and, 1)
        assert call.how.startswith("inline (this process has ") and "Python threads" in call.how
        assert call.result() == (os.getpid(), 1)
    finally:
        stop.set()
        other.join()


def test_the_switch_turns_forking_off(monkeypatch):
    monkeypatch.setenv(ENV_SWITCH, "0")
    call = ForkedCall(_pid_and, 1)
    assert call.how == f"inline ({ENV_SWITCH}=0)" and call.result() == (os.getpid(), 1)
    with pytest.raises(IngestError):  # inline, the exception is simply raised
        ForkedCall(_raise, IngestError("bad")).result()


def _fork_then_die(out) -> None:
    call = ForkedCall(time.sleep, 120)
    out.put((call.how, call._pid))
    time.sleep(0.5)  # let the queue's feeder thread send it
    os.kill(os.getpid(), signal.SIGKILL)  # the run process killed (kill -9, OOM) mid-ingest


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return any(line.split()[:2] == ["State:", "Z"] for line in fh)  # a zombie waiting for init is dead
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux) to see the child end")
def test_the_child_dies_with_a_killed_parent():
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    parent = ctx.Process(target=_fork_then_die, args=(out,))
    parent.start()
    how, child = out.get(timeout=60)
    parent.join(timeout=60)
    assert how == "forked child" and parent.exitcode == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child), f"forked child {child} outlived its killed parent"
