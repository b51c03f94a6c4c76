"""Ingest benchmark for an eval toolkit's own files (issue 35): lm-evaluation-harness ``--log_samples``
output of ~100 MB (gsm8k-shaped rows: a ~2.4 KB 5-shot prompt, a ~1 KB response, each document written
once per answer filter, strict-match and flexible-extract), with its results json.

    python bench/bench_eval_ingest.py [--docs 11800] [--scales 1,4] [--dir /tmp/...]

Each ingest runs in a fresh subprocess (bench_ingest.run), so ru_maxrss is that run's own peak RSS and
the time includes interpreter start-up and imports (~0.5 s). Target: <= 3 s for 100 MB at 1x on one
core, peak RSS flat between 1x and 4x input.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

from bench_ingest import WORDS, run  # the subprocess runner and word list of the exported-rows benchmark

TIME = "2026-01-01T00-00-00.000001"


def _para(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def make_run(folder: Path, docs: int, seed: int) -> int:
    """samples_gsm8k_<time>.jsonl (two rows per document, one per filter) and results_<time>.json."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    shots = "\n\n".join(f"Question: {_para(rng, 60)}\nAnswer: {_para(rng, 20)}" for _ in range(5))
    right = 0
    path = folder / f"samples_gsm8k_{TIME}.jsonl"
    with open(path, "w") as fh:
        for i in range(docs):
            question = _para(rng, 45)
            response = _para(rng, rng.randint(120, 200)) + f" The answer is {i}."
            ok = rng.random() < 0.6
            right += ok
            for filt in ("strict-match", "flexible-extract"):
                extracted = str(i) if ok or filt == "flexible-extract" else "[invalid]"
                row = {
                    "doc_id": i,
                    "doc": {"question": question, "answer": f"#### {i}"},
                    "target": str(i),
                    "arguments": {
                        "gen_args_0": {
                            "arg_0": f"{shots}\n\nQuestion: {question}\nAnswer:",
                            "arg_1": {"until": ["Question:", "</s>"], "do_sample": False, "temperature": 0.0},
                        }
                    },
                    "resps": [[response]],
                    "filtered_resps": [extracted],
                    "filter": filt,
                    "metrics": ["exact_match"],
                    "doc_hash": f"{rng.getrandbits(256):064x}",
                    "prompt_hash": f"{rng.getrandbits(256):064x}",
                    "target_hash": f"{rng.getrandbits(256):064x}",
                    "exact_match": float(ok) if filt == "strict-match" else 1.0,
                }
                fh.write(json.dumps(row) + "\n")
    results = {
        "results": {
            "gsm8k": {"alias": "gsm8k", "exact_match,strict-match": right / docs, "exact_match,flexible-extract": 1.0}
        },
        "configs": {
            "gsm8k": {
                "num_fewshot": 5,
                "doc_to_text": "Question: {{question}}\nAnswer:",
                "repeats": 1,
                "generation_kwargs": {"until": ["Question:", "</s>"], "do_sample": False, "temperature": 0.0},
            }
        },
        "n-shot": {"gsm8k": 5},
        "n-samples": {"gsm8k": {"original": docs, "effective": docs}},
        "lm_eval_version": "0.4.8",
    }
    (folder / f"results_{TIME}.json").write_text(json.dumps(results))
    return path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=11800)
    ap.add_argument("--scales", default="1,4")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    base = Path(args.dir or tempfile.mkdtemp(prefix="bench_eval_ingest_"))
    print(
        f"{'scale':>5} {'docs':>7} {'MB in':>8} {'rows':>7} {'wall s':>7} {'cpu s':>7} {'MB/s(cpu)':>9}"
        f" {'peak RSS MB':>11}"
    )
    for scale in (int(s) for s in args.scales.split(",")):
        folder = base / f"x{scale}"
        sample = folder / f"samples_gsm8k_{TIME}.jsonl"
        size = sample.stat().st_size if sample.exists() else make_run(folder, args.docs * scale, seed=scale)
        rows, secs, rss, cpu = run([str(folder)])
        mb = size / 1e6
        print(
            f"{scale:>5} {args.docs * scale:>7} {mb:>8.1f} {rows:>7} {secs:>7.2f} {cpu:>7.2f} {mb / cpu:>9.1f}"
            f" {rss:>11.0f}"
        )


if __name__ == "__main__":
    main()
