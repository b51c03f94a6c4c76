"""Shared by the log-parsing benches: read a folder in a fresh child process (so each peak RSS is
its own) and report wall time, CPU time and peak RSS with whatever the reader's result adds."""

from __future__ import annotations

import importlib
import json
import resource
import subprocess
import sys
import time

# The readers import these on first use (loading the definitions stays light); a process pays that
# once, whatever it reads, so it is timed apart from the read (its memory stays in the peak RSS).
LIBRARIES = ("numpy", "pandas", "pyarrow")


def measure(read, folder: str, describe) -> None:
    """Child side: time `read(folder)`, print one JSON line with the figures and `describe(result)`."""
    t0 = time.perf_counter()
    for name in LIBRARIES:
        importlib.import_module(name)
    imports = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    result = read(folder)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {"seconds": dt, "cpu_seconds": cpu, "import_seconds": imports, "peak_rss_mb": rss, **describe(result)}
        )
    )


def run_child(script: str, folder: str) -> dict:
    """Parent side: run `script --child folder` and return its JSON line."""
    done = subprocess.run([sys.executable, script, "--child", folder], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)
