"""Import cost of the Dagster definitions vs `import dagster` alone (the floor every process pays).

The webserver, the daemon and every run import rl_assets.definitions; heavy libraries (matplotlib,
scipy, the audit's reasoning_gym) are imported where they are used, not here. Each import runs in a
fresh interpreter, alternating the two, so machine load hits both alike; the figure is the median.

    .venv/bin/python bench/bench_import.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

HEAVY = ("matplotlib", "scipy", "reasoning_gym", "pandas", "pyarrow", "sqlalchemy")


def _wall(stmt: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", stmt], check=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args().runs
    _wall("import rl_assets.definitions")  # warm the file cache and the bytecode
    base, defs = [], []
    for _ in range(runs):
        base.append(_wall("import dagster"))
        defs.append(_wall("import rl_assets.definitions"))
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys, rl_assets.definitions; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    b, d = statistics.median(base), statistics.median(defs)
    print(f"import dagster: median {b:.2f} s ({min(base):.2f}-{max(base):.2f}) over {runs} runs")
    print(f"import rl_assets.definitions: median {d:.2f} s ({min(defs):.2f}-{max(defs):.2f})")
    print(f"ratio {d / b:.2f}x (target <= 1.5x); heavy libraries loaded: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
