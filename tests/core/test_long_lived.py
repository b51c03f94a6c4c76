"""rl_assets/support/long_lived.py: what a code location imports is kept out of the cycle collector's
full passes, and a forked child starts from a frozen heap (its collector leaves the shared pages alone).

Both run in a fresh interpreter: the test process's own heap (pytest, earlier tests) says nothing."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_AFTER_DEFINITIONS = """
import gc, json
import dagster  # as `dagster asset materialize` does before it loads the code location
import rl_assets.definitions
print(json.dumps({"frozen": gc.get_freeze_count(), "walked": len(gc.get_objects())}))
"""

_AROUND_A_FORK = """
import gc, json
from rl_assets.support.forked_call import ForkedCall
gc.unfreeze()  # rl_assets' own import froze what was there; start from nothing frozen
kept = [[i] for i in range(50_000)]  # alive at the fork, as a run's state is (lists are always tracked)
before = gc.get_freeze_count()
call = ForkedCall(len, kept)
print(json.dumps({"how": call.how, "before": before, "after": gc.get_freeze_count(), "value": call.result()}))
"""


def _run(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_loading_the_definitions_leaves_them_out_of_the_collectors_passes():
    got = _run(_AFTER_DEFINITIONS)
    # Dagster alone tracks ~130,000 objects; all of them and the definitions' are frozen, and a
    # full pass afterwards walks only what was made since
    assert got["frozen"] > 100_000
    assert got["walked"] < got["frozen"] // 20, got


def test_a_forked_call_freezes_the_heap_the_child_shares():
    got = _run(_AROUND_A_FORK)
    assert got["how"] == "forked child" and got["value"] == 50_000
    assert got["before"] == 0 and got["after"] >= 50_000, got


def test_importing_rldelta_as_a_library_freezes_nothing():
    # a notebook or script that imports rldelta's modules keeps its own heap as it was
    got = _run(
        "import gc, json\n"
        "import dagster, rl_assets.ingest, rl_assets.analysis.q1.behavioral_delta\n"
        "print(json.dumps({'frozen': gc.get_freeze_count()}))"
    )
    assert got["frozen"] == 0
