"""Every benchmark under bench/ still imports: a module move (a helper into tests/support/, a
value module into rl_assets/values/) breaks a benchmark only when someone next runs `make bench`,
so the suite imports each one (its `main()` does not run: each has an `if __name__ == "__main__"`
guard) in one child interpreter, with the sys.path each script sets up for itself."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_every_benchmark_imports():
    names = sorted(p.stem for p in BENCH.glob("*.py"))
    assert "bench_judge" in names and len(names) >= 9, names
    code = (
        "import importlib, sys, traceback\n"
        f"sys.path.insert(0, {str(BENCH)!r})\n"
        "failed = []\n"
        f"for name in {names!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        failed.append(name + ': ' + traceback.format_exc(limit=1).strip().splitlines()[-1])\n"
        "print('\\n'.join(failed))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"benchmarks that no longer import:\n{done.stdout}"
