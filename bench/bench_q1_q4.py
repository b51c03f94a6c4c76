"""Q1 + Q4 benchmark: behavioral_delta and solve_rate_by_context on a 2 x N-row normalized pair.

    python bench/bench_q1_q4.py [--rows 2000] [--n-boot 2000] [--dir /tmp/...]

The pair is built by bench_ingest.py's generator and ingested once (not timed); then the
analyses are timed from reading the parquet to the rendered report (markdown, JSON, PNG).
Two task layouts: the generator's 400 tasks x 5 attempts, and the bootstrap's worst case of
one attempt per task (N tasks). Target (docs/statistics.md): Q1 + Q4 <= 3 s at N = 2000.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import pyarrow as pa  # noqa: E402
from bench_ingest import make_file  # noqa: E402

from rl_assets.analysis.q1.behavioral_delta import NEEDED, compute_behavioral_delta  # noqa: E402
from rl_assets.analysis.q1.report import render_markdown as q1_md  # noqa: E402
from rl_assets.analysis.q4.context_bins import COLUMNS, solve_rate_by_context  # noqa: E402
from rl_assets.analysis.q4.report import render_markdown as q4_md  # noqa: E402
from rl_assets.analysis.q4.report import render_png  # noqa: E402
from rl_assets.analysis.render.report_md import jsonable  # noqa: E402
from rl_assets.ingest import ingest_source, read_traces  # noqa: E402
from rl_assets.values.task_identity import TASK_ID  # noqa: E402


def one_task_per_row(table: pa.Table) -> pa.Table:
    """Every row its own task. Pairing keys a row by its content key (task_key) where ingest set one,
    so the key is rewritten too: renaming task ids alone leaves the generator's 400 questions."""
    ids = pa.array([f"task-{i}" for i in range(len(table))])
    for col, values in (("task_id", ids), ("task_key", ids), ("task_key_source", pa.array([TASK_ID] * len(table)))):
        if col in table.schema.names:
            table = table.set_column(table.schema.get_field_index(col), col, values)
    return table


def timed(paths: list[Path], n_boot: int, reshape=None) -> dict:
    t0 = time.perf_counter()
    b, a = (read_traces(p, columns=NEEDED) for p in paths)
    if reshape:
        b, a = reshape(b), reshape(a)
    t1 = time.perf_counter()
    q1 = jsonable(compute_behavioral_delta(b, a, n_boot=n_boot, seed=0))
    json.dumps(q1, allow_nan=False)
    q1_md(q1)
    t2 = time.perf_counter()
    b4, a4 = (read_traces(p, columns=COLUMNS) for p in paths)
    q4 = jsonable(solve_rate_by_context(b4, a4))
    q4_md(q4)
    t3 = time.perf_counter()
    png = render_png(q4)
    t4 = time.perf_counter()
    return {
        "tasks": q1["common_tasks"],
        "read_s": t1 - t0,
        "q1_s": t2 - t1,
        "q4_tables_s": t3 - t2,
        "q4_png_s": t4 - t3,
        "total_s": t4 - t0,
        "png_kb": len(png) / 1024,
        "significant": sum(f["significant"] for f in q1["features"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    work = args.dir or Path(tempfile.mkdtemp(prefix="bench_q1_q4_"))
    work.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed, side in ((1, "baseline"), (2, "post")):
        src, out = work / f"{side}-{args.rows}.jsonl", work / f"{side}-{args.rows}.parquet"
        if not out.exists():  # a --dir from an earlier run skips the (untimed) generate + ingest
            make_file(src, args.rows, seed)
            ingest_source(str(src), out, hub=None)
        paths.append(out)
    # Paid once per process (a run pays each once, whatever it analyses): reported apart from Q1/Q4.
    t0 = time.perf_counter()
    import matplotlib.pyplot  # noqa: F401

    t1 = time.perf_counter()
    import scipy.stats  # noqa: F401

    t2 = time.perf_counter()

    print(
        f"2 x {args.rows} rows, n_boot={args.n_boot}, files in {work}; once per process, not in the totals: "
        f"matplotlib import {t1 - t0:.2f}s, scipy.stats import {t2 - t1:.2f}s"
    )
    for name, reshape in (("400 tasks x 5 attempts", None), (f"{args.rows} tasks x 1 attempt", one_task_per_row)):
        r = timed(paths, args.n_boot, reshape)
        print(
            f"{name:>26}: read {r['read_s']:.2f}s  Q1 {r['q1_s']:.2f}s  Q4 tables {r['q4_tables_s']:.2f}s  "
            f"Q4 png {r['q4_png_s']:.2f}s  total {r['total_s']:.2f}s  ({r['tasks']} common tasks, "
            f"{r['significant']} significant features, png {r['png_kb']:.0f} KB)"
            + ("" if r["total_s"] <= 3.0 else "  !! over the 3 s target")
        )


if __name__ == "__main__":
    main()
