"""A killed run ends cleanly: INDEX.md says "interrupted" (not "running") once its process is gone,
a step process started through multiprocessing dies with its parent, and the instance that
rldelta writes turns on run monitoring."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import dagster as dg
import pytest

from rl_assets.analysis.render.index_md import render_index
from rl_assets.assets.report_index import asset_status
from rl_assets.support.instance import ensure_instance_yaml

MODEL = "org/killed-8B"

RUN = textwrap.dedent("""
    import sys, time
    import dagster as dg
    @dg.asset(partitions_def=dg.DynamicPartitionsDefinition(name="models"))
    def slow_asset():
        time.sleep(600)
    instance = dg.DagsterInstance.local_temp(tempdir=sys.argv[1])
    dg.materialize([slow_asset], instance=instance, partition_key=sys.argv[2])
""")


def _wait_for(predicate, what: str, limit_s: float = 120):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    pytest.fail(f"never saw: {what}")


def test_index_says_interrupted_for_a_killed_run(tmp_path):
    (tmp_path / "dagster").mkdir()
    instance = dg.DagsterInstance.local_temp(tempdir=str(tmp_path / "dagster"))
    instance.add_dynamic_partitions("models", [MODEL])
    proc = subprocess.Popen([sys.executable, "-c", RUN, str(tmp_path / "dagster"), MODEL])
    key = dg.AssetKey("slow_asset")
    kw = {"group": "q1", "step": "slow_asset"}
    try:
        _wait_for(lambda: asset_status(instance, key, MODEL, **kw)["status"] == "running", "the run start")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    status = asset_status(instance, key, MODEL, **kw)
    assert status["status"] == "interrupted"
    text = render_index(MODEL, "now", [status], [], [])
    assert "interrupted" in text and "right now" not in text


GUARDED = textwrap.dedent("""
    import multiprocessing, sys, time
    def step():
        import rl_assets  # noqa: F401 - arms the guard, as every step process does
        time.sleep(600)
    if __name__ == "__main__":
        child = multiprocessing.get_context(sys.argv[1]).Process(target=step)
        child.start()
        print(child.pid, flush=True)
        time.sleep(600)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_step_process_dies_with_its_run(tmp_path, method):
    script = tmp_path / "run.py"
    script.write_text(GUARDED)
    parent = subprocess.Popen([sys.executable, str(script), method], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    time.sleep(3)  # let the child import rl_assets and arm its guard (not asserted on)
    parent.send_signal(signal.SIGKILL)
    parent.wait()

    def gone():
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{child}/stat") as fh:  # a zombie waiting for init to reap it is gone too
            return fh.read().split(") ")[-1].startswith("Z")

    _wait_for(gone, f"step process {child} exit after its run was killed")


def test_instance_yaml_turns_on_run_monitoring(tmp_path):
    ensure_instance_yaml(tmp_path)
    instance = dg.DagsterInstance.from_config(str(tmp_path))
    assert instance.run_monitoring_enabled
