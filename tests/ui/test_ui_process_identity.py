"""`make ui`'s stop signals only the processes it started: a process is known by its pid and its start time,
so a pid the kernel hands to an unrelated process after ours exited is never taken for ours."""

import subprocess
from pathlib import Path

import pytest

from rl_assets.cli.ui import is_running, process_tree

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the process tree")


def test_a_process_is_known_by_its_pid_and_start_time():
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        tree = process_tree(child.pid)
        assert list(tree) == [child.pid]
        started = tree[child.pid]
        assert is_running(child.pid, started) and is_running(child.pid)
        # the same pid with another start time is another process (a reused pid): not ours
        assert not is_running(child.pid, started + 1)
    finally:
        child.kill()
        child.wait()
    assert not is_running(child.pid, started)


def test_an_orphan_in_the_session_stays_in_the_tree():
    """A grandchild whose parent exited is reparented to init, yet still found through its session."""
    leader = subprocess.Popen(["sh", "-c", "sleep 30 & echo $!"], stdout=subprocess.PIPE, start_new_session=True)
    orphan = int(leader.stdout.readline())
    leader.wait()
    try:
        tree = process_tree(leader.pid)
        assert orphan in tree and is_running(orphan, tree[orphan])
    finally:
        subprocess.run(["kill", "-9", str(orphan)], check=False)
