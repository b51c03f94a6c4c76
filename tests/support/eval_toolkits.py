"""Hand-made eval-toolkit outputs for the reader tests: the shapes the toolkits write, built here so
each edge case (repeats, a missing extraction, unicode, two prompt templates) is one argument.

Qwen2.5-Math: rows as ``evaluation/math_eval.py`` writes them (QwenLM/Qwen2.5-Math ab5097e):
``idx, question, gt_cot, gt, <dataset fields>, code[n], pred[n], report[n], score[n]``, file
``<data_name>/<split>_<prompt_type>_<num_test_sample>_seed<seed>_t<temperature>_s<start>_e<end>.jsonl``
and ``<same stem>_<prompt_type>_metrics.json`` beside it. lm-evaluation-harness: 0.4 ``--log_samples``
rows. Questions and answers are placeholders or arithmetic, never model text.
"""

from __future__ import annotations

import json
from pathlib import Path


def qwen_row(idx: int, question: str, gt: str, preds: list[str], scores: list[bool], **extra) -> dict:
    return {
        "idx": idx,
        "question": question,
        "gt_cot": "None",
        "gt": gt,
        **extra,
        "code": [f"<response {idx}.{j}> \\boxed{{{p}}}" if p else f"<response {idx}.{j}>" for j, p in enumerate(preds)],
        "pred": preds,
        "report": [None] * len(preds),
        "score": scores,
    }


def qwen_file(
    root: Path,
    data_name: str,
    rows: list[dict],
    *,
    prompt_type: str = "qwen25-math-cot",
    temperature: float = 0.0,
    acc: float | None = None,
    metrics: bool = True,
) -> Path:
    """Write one benchmark's output (and its _metrics.json, acc computed the toolkit's way --
    the first sample per question, one decimal -- unless ``acc`` is given)."""
    folder = root / data_name
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"test_{prompt_type}_-1_seed0_t{temperature}_s0_e-1"
    path = folder / f"{stem}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    if metrics:
        if acc is None:
            acc = round(100 * sum(bool(r["score"][0]) for r in rows) / len(rows), 1)
        n_scores = sum(len(r["score"]) for r in rows)
        summary = {
            "num_samples": len(rows),
            "num_scores": n_scores,
            "timeout_samples": 0,
            "empty_samples": sum(not r["pred"][-1] for r in rows),
            "acc": acc,
            "time_use_in_second": 12.5,
            "time_use_in_minite": "0:12",
        }
        (folder / f"{stem}_{prompt_type}_metrics.json").write_text(json.dumps(summary, indent=4))
    return path


def lm_eval_row(
    doc_id: int,
    question: str,
    answer: str,
    filtered: str,
    exact: float,
    *,
    filt="strict-match",
    shots_prompt="<prompt>",
    until=("Question:",),
) -> dict:
    return {
        "doc_id": doc_id,
        "doc": {"question": question, "answer": answer},
        "target": answer,
        "arguments": {
            "gen_args_0": {
                "arg_0": f"{shots_prompt} {question}",
                "arg_1": {"until": list(until), "do_sample": False, "temperature": 0.0},
            }
        },
        "resps": [[f"<response {doc_id}> The answer is {filtered}"]],
        "filtered_resps": [filtered],
        "filter": filt,
        "metrics": ["exact_match"],
        "doc_hash": f"{doc_id:064x}",
        "prompt_hash": f"{doc_id + 1000:064x}",
        "target_hash": f"{doc_id + 2000:064x}",
        "exact_match": exact,
    }


def lm_eval_run(
    root: Path,
    task: str,
    rows: list[dict],
    *,
    time="2026-01-01T00-00-00.000001",
    num_fewshot=5,
    results: dict | None = None,
) -> Path:
    """samples_<task>_<time>.jsonl and results_<time>.json (its exact_match per filter = the rows' mean
    unless ``results`` overrides the task's metrics)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"samples_{task}_{time}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    by_filter: dict[str, list[float]] = {}
    for r in rows:
        by_filter.setdefault(r["filter"], []).append(r["exact_match"])
    metrics = {f"exact_match,{f}": sum(v) / len(v) for f, v in by_filter.items()}
    docs = len({r["doc_id"] for r in rows})
    doc = {
        "results": {task: {"alias": task, **(results if results is not None else metrics)}},
        "configs": {
            task: {
                "task": task,
                "doc_to_text": "Question: {{question}}\nAnswer:",
                "num_fewshot": num_fewshot,
                "generation_kwargs": {
                    "until": ["Question:"],
                    "do_sample": False,
                    "temperature": 0.0,
                    "max_gen_toks": 256,
                },
                "repeats": 1,
            }
        },
        "versions": {task: 3.0},
        "n-shot": {task: num_fewshot},
        "n-samples": {task: {"original": docs, "effective": docs}},
        "config": {"model": "vllm", "model_args": {"pretrained": "org/model"}},
        "lm_eval_version": "0.4.8",
        "chat_template_sha": None,
    }
    (root / f"results_{time}.json").write_text(json.dumps(doc, indent=2))
    return path
