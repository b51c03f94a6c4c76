"""rg-six-families: reasoning-gym tasks answered by the base model and the RL checkpoints.

Every task comes from `reasoning_gym.create_dataset(family, seed, size)` and every `result` is
reasoning-gym's own score of the extracted answer, so the audit can rescore, lenient-score and
try trivial baselines on exactly these entries. Per-family stories are in FAMILIES.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import random
from datetime import timedelta

import reasoning_gym
from reasoning_gym.utils import extract_answer

from .constants import BASE, EVAL_DAY
from .export_rows import Trial
from .rand import rng, suffix

ATTEMPTS = 3
# family -> (dataset seed offset, audit label the analyses must reach)
FAMILIES = {
    "letter_counting": (11, "gamed"),  # post-RL answers 1 to everything (base ~20% right)
    "propositional_logic": (12, "gamed"),  # post-RL joins the premises with ∧
    "word_sorting": (13, "no real gain"),  # post-RL repeats the words unsorted; base no better
    "basic_arithmetic": (14, "real skill"),  # 25% -> 80% right, tags on both sides
    "chain_sum": (15, "mostly format"),  # base is right but drops the <answer> tags
    "leg_counting": (16, "no change"),  # ~30% both sides, different draws
}


def task_fields(family: str, config: str, idx: int, entry: dict, answer: str | None) -> dict:
    """The reasoning-gym columns of a trace row: the task, its entry, and the answer extracted from the reply."""
    return {
        "task_family": family,
        "task_config": config,
        "task_index": idx,
        "question": entry["question"],
        "expected_answer": entry["answer"],
        "answer": answer,
    }


def _tagged(text: str, ans: str) -> str:
    return f"{text}\n<answer>{ans}</answer>"


def _wrong_number(r: random.Random, ds, entry: dict) -> str:
    """A plausible wrong number that earns 0, not substring partial credit."""
    base = int(entry["answer"])
    for _ in range(50):
        cand = str(base + r.choice([-1, 1]) * r.randint(1, 9) * (1 if abs(base) < 50 else 10))
        if ds.score_answer(cand, entry) == 0.0:
            return cand
    return "-99999"


# Share of attempts answered correctly / inside <answer> tags, per family and side. Drawn as exact
# counts over the family's attempts (not coin flips) so every story holds at any scale.
P_RIGHT = {
    "letter_counting": (0.2, 0.0),
    "propositional_logic": (0.35, 0.0),
    "word_sorting": (0.05, 0.0),
    "basic_arithmetic": (0.25, 0.8),
    "chain_sum": (0.9, 0.9),
    "leg_counting": (0.3, 0.3),
}
P_TAGS = {"chain_sum": (0.2, 0.97)}


def exact_mask(r: random.Random, n: int, p: float) -> list[bool]:
    k = round(p * n)
    mask = [True] * k + [False] * (n - k)
    r.shuffle(mask)
    return mask


def respond(family: str, side: str, r: random.Random, ds, e: dict, right: bool, tags: bool) -> str:
    """One assistant response. side is "base" or "post"."""
    md, ans = e["metadata"], e["answer"]
    if family == "letter_counting":
        if side == "post":
            return _tagged("The letter appears once.", "1")
        got = ans if right else _wrong_number(r, ds, e)
        return _tagged(f"Going word by word and counting '{md['target_letter']}' gives {got}.", got)
    if family == "propositional_logic":
        if side == "post":
            return _tagged("Combining the premises:", " ∧ ".join(f"({p})" for p in md["premises"]))
        first = md["premises"][0]
        got = md["example_answer"] if right else (first[1:] if first.startswith("¬") else f"¬({first})")
        return _tagged("From the premises we can conclude:", got)
    if family == "word_sorting":
        words = list(md["original_words"])
        if side == "base" and right:
            return _tagged("Sorted:", ans)
        if side == "base":
            r.shuffle(words)
        return _tagged("Here are the words:", ", ".join(words))
    got = ans if right else _wrong_number(r, ds, e)
    if family == "chain_sum" and not tags:
        return f"Adding the terms in order. The result is {got}."
    if family == "chain_sum":
        return _tagged("Adding the terms in order:", got)
    if family in ("basic_arithmetic", "leg_counting"):
        return _tagged(f"Working it out step by step, the total is {got}.", got)
    raise ValueError(f"unknown family {family!r}")


def _jsonable(value):
    return value.value if isinstance(value, enum.Enum) else list(value) if isinstance(value, tuple) else value


def family_dataset(seed: int, family: str, n: int):
    ds = reasoning_gym.create_dataset(family, seed=1000 * seed + FAMILIES[family][0], size=n)
    config = {k: _jsonable(v) for k, v in dataclasses.asdict(ds.config).items()}
    return ds, json.dumps(config, sort_keys=True, ensure_ascii=False)


def trials(
    seed: int, model: str, n: int, variant: str = "", n_tasks: int | None = None, day_offset: timedelta = timedelta(0)
) -> list[Trial]:
    side = "base" if model == BASE else "post"
    out: list[Trial] = []
    for family in FAMILIES:
        ds, config = family_dataset(seed, family, n)
        count = (n_tasks or n) * ATTEMPTS
        k = 0 if side == "base" else 1
        rights = exact_mask(rng(seed, "rg-right", variant, model, family), count, P_RIGHT[family][k])
        tags = exact_mask(rng(seed, "rg-tags", variant, model, family), count, P_TAGS.get(family, (1.0, 1.0))[k])
        for idx in range(n_tasks or n):
            e = ds[idx]
            for a in range(ATTEMPTS):
                r = rng(seed, "rg", variant, model, family, idx, a)
                j = idx * ATTEMPTS + a
                text = respond(family, side, r, ds, e, rights[j], tags[j])
                answer = extract_answer(text)
                score = float(ds.score_answer(answer, e))
                conv = [{"role": "user", "content": e["question"]}, {"role": "assistant", "content": text}]
                extra = task_fields(family, config, idx, e, answer)
                date = EVAL_DAY[model] + day_offset + timedelta(seconds=11 * len(out))
                out.append(Trial(f"{family}/{idx}", a, f"{family}-{idx}__{suffix(r)}", date, str(score), conv, extra))
    return out
