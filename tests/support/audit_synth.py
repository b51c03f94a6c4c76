"""Synthetic before/after trace rows built from real reasoning-gym tasks (shared by audit tests).

Each scenario states how a model answers task i; the rows look like the normalized trace table.
"""

from __future__ import annotations

import json

SEED = 4242


def tagged(text: str) -> str:
    return f"Let me think step by step.\n<answer>{text}</answer>"


def rows_for(family: str, n: int, respond, *, seed: int = SEED) -> list[dict]:
    """respond(i, entry) -> full response text or None (no answer at all)."""
    import reasoning_gym  # here, not at the top: every test worker imports this module while collecting (1.5 s)

    config = {"seed": seed, "size": n}
    dataset = reasoning_gym.create_dataset(family, **config)
    rows = []
    for i in range(n):
        entry = dataset[i]
        response = respond(i, entry)
        answer = None
        if response and "<answer>" in response:
            answer = response.rsplit("<answer>", 1)[1].split("</answer>", 1)[0].strip()
        rows.append(
            {
                "task_id": f"{family}/{i}",
                "task_family": family,
                "task_index": i,
                "task_config": json.dumps(config),
                "question": entry["question"],
                "expected_answer": entry["answer"],
                "answer": answer,
                "reward": float(dataset.score_answer(answer, entry)),
                "conversation": json.dumps(
                    [
                        {"role": "user", "content": entry["question"]},
                        {"role": "assistant", "content": response or ""},
                    ]
                ),
            }
        )
    return rows


def wrong(entry) -> str:
    return str(int(entry["answer"]) + 7)


def scenario() -> tuple[list[dict], list[dict], dict[str, str]]:
    """(before rows, after rows, expected label per family)."""
    right = lambda i, e: tagged(e["answer"])  # noqa: E731
    before, after = [], []
    # letter_counting: RL taught it to answer "1" everywhere.
    before += rows_for("letter_counting", 20, lambda i, e: tagged(e["answer"] if i % 4 == 0 else wrong(e)))
    after += rows_for("letter_counting", 20, lambda i, e: tagged("1"))
    # basic_arithmetic: right on 3/20 before, 18/20 after, always in tags -> real skill.
    before += rows_for("basic_arithmetic", 20, lambda i, e: right(i, e) if i < 3 else tagged(wrong(e)))
    after += rows_for("basic_arithmetic", 20, lambda i, e: right(i, e) if i < 18 else tagged(wrong(e)))
    # chain_sum: the base model already had the right numbers, just without the tags.
    before += rows_for("chain_sum", 20, lambda i, e: f"So the total is {e['answer']}." if i < 17 else "hmm")
    after += rows_for("chain_sum", 20, lambda i, e: right(i, e) if i < 18 else tagged(wrong(e)))
    # leg_counting: identical behaviour on both sides.
    same = lambda i, e: right(i, e) if i % 2 else tagged(wrong(e))  # noqa: E731
    before += rows_for("leg_counting", 20, same)
    after += rows_for("leg_counting", 20, same)
    # word_sorting: only 3 tasks -> no confident label whatever happens.
    before += rows_for("word_sorting", 3, lambda i, e: tagged("x"))
    after += rows_for("word_sorting", 3, right)
    expected = {
        "letter_counting": "gamed",
        "basic_arithmetic": "real skill",
        "chain_sum": "mostly format",
        "leg_counting": "no change",
        "word_sorting": "not enough data",
    }
    return before, after, expected


def write_eval_files(rows: list[dict], folder) -> None:
    """The rows as reasoning-gym evaluation outputs, layout (a): one JSON per family."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    families: dict[str, list[dict]] = {}
    for row in rows:
        families.setdefault(row["task_family"], []).append(row)
    for family, items in families.items():
        items.sort(key=lambda r: r["task_index"])
        doc = {
            "name": family,
            "category": "synthetic",
            "config": json.loads(items[0]["task_config"]),
            "results": [
                {
                    "question": r["question"],
                    "expected_answer": r["expected_answer"],
                    "model_answer": r["answer"],
                    "score": r["reward"],
                    "full_model_response": json.loads(r["conversation"])[-1]["content"],
                }
                for r in items
            ],
        }
        (folder / f"{family}.json").write_text(json.dumps(doc), encoding="utf-8")
