"""Judge throughput and cache benchmark against the loopback server (1 s per call).

30 pairs x 2 orders at concurrency 4 must finish in <= 17 s (60 calls / 4 = 15 s of latency),
and a fully cached re-run must make 0 calls in < 2 s. Exits 1 when a target is missed.

    .venv/bin/python bench/bench_judge.py [--latency 1.0] [--pairs 30] [--concurrency 4]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from resources.llm import LLMResource  # noqa: E402
from rl_assets.analysis.judge.run import judge_pairs  # noqa: E402
from rl_assets.analysis.judge.selection import ROW_COLUMNS, representatives, select_probes  # noqa: E402
from rl_assets.support.trace_stream import load_rows  # noqa: E402
from support.llm_server import LLMServer, as_json, write_trace_table  # noqa: E402


def reply(body):
    user = body["messages"][-1]["content"]
    winner = "A" if "post attempt" in user.split("## Trace B")[0] else "B"
    return as_json(
        {
            "behavior_change": "x",
            "tags": ["more-tool-calls"],
            "confidence": "medium",
            "winner": winner,
            "winner_reason": "y",
        }
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--pairs", type=int, default=30)
    ap.add_argument("--concurrency", type=int, default=4)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_judge_"))
    os.environ["RLDELTA_HOME"] = str(tmp / "home")
    refs = {s: {"path": write_trace_table(tmp / f"{s}.parquet", args.pairs + 10, s)} for s in ("base", "post")}
    rows = {
        s: representatives(
            load_rows(r["path"], ROW_COLUMNS, with_conversation_for={f"{s}-{t:03d}-0" for t in range(args.pairs + 10)})
        )
        for s, r in refs.items()
    }
    probes = select_probes(rows["base"], rows["post"], args.pairs, 0)

    figures = {}
    with LLMServer(latency=args.latency, responder=reply) as srv:
        llm = LLMResource(
            base_url=srv.base_url, api_key="bench", concurrency=args.concurrency, cache_root=str(tmp / "llm")
        )
        for run in ("cold", "cached"):
            before = srv.calls
            t0 = time.monotonic()
            pairs = judge_pairs(
                probes, rows["base"], rows["post"], llm.session("judge", "bench/model", log=lambda m: None)
            )
            figures[run] = {
                "seconds": round(time.monotonic() - t0, 2),
                "calls": srv.calls - before,
                "pairs_judged": sum(p["status"] == "judged" for p in pairs),
            }
    ideal = 2 * args.pairs * args.latency / args.concurrency
    print(
        f"judge bench: {args.pairs} pairs x 2 orders, concurrency {args.concurrency}, {args.latency:g} s/call "
        f"(ideal {ideal:.1f} s)"
    )
    for run, f in figures.items():
        print(f"  {run:7s} {f['seconds']:6.2f} s  calls={f['calls']:3d}  pairs judged={f['pairs_judged']}")
    ok = (
        figures["cold"]["seconds"] <= ideal + 2
        and figures["cold"]["pairs_judged"] == args.pairs
        and figures["cached"]["calls"] == 0
        and figures["cached"]["seconds"] < 2
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
