"""Trace rows -> per-family tasks with attempts, and each family's own scorer.

A task is identified by (generator config, index inside the seeded dataset) when the rows carry
them — that identity survives two different eval files for the same seeded tasks — else by
``task_id``. For reasoning-gym families the dataset entry is regenerated from the config and the
family's ``score_answer`` becomes the ruler for everything (model answers, trivial baselines,
lenient readings), so every number in the audit is measured the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from rl_assets.analysis.audit.lenient import last_assistant_message

TaskKey = tuple[str, str]  # (canonical config JSON or "", index or task_id)


@dataclass
class Attempt:
    answer: str | None  # what the source recorded as the final answer (strict reading)
    response: str | None  # the full last assistant message (for the lenient reading)
    recorded: float | None  # the reward the source recorded
    conversation: str | None = None  # the trace's messages as JSON (the contrastive rules read its tool calls)


@dataclass
class Family:
    name: str
    entries: dict[TaskKey, dict] = field(default_factory=dict)  # task -> dataset entry
    before: dict[TaskKey, list[Attempt]] = field(default_factory=dict)
    after: dict[TaskKey, list[Attempt]] = field(default_factory=dict)
    scored: bool = False  # True when every task regenerated and the family scorer applies
    scorer_note: str = ""  # why there is no scorer, or where it came from

    def score(self, key: TaskKey, answer: str | None) -> float:
        """The family's own score for an answer to one task (only when ``scored``)."""
        return float(_dataset(self.name, key[0]).score_answer(answer, self.entries[key]))

    @property
    def common(self) -> list[TaskKey]:
        """Tasks both sides attempted, in a stable order (the paired tests use only these)."""
        return sorted(set(self.before) & set(self.after))


def _canonical_config(raw: str | None) -> str:
    if not raw:
        return ""
    try:
        return json.dumps(json.loads(raw), sort_keys=True)
    except ValueError:
        return raw


def task_key(row: dict) -> TaskKey:
    if row.get("task_index") is not None and row.get("task_config"):
        return (_canonical_config(row["task_config"]), str(int(row["task_index"])))
    return ("", str(row.get("task_id")))


def _typed_config(family: str, config: dict) -> dict:
    """JSON config -> create_dataset kwargs: enums and tuples restored, unknown keys dropped.

    Configs round-trip through JSON in trace files, which turns enum fields into strings (that
    config.validate() rejects) and tuples into lists. Dropping unknown keys is safe because every
    regenerated question is compared with the traced one before the scorer is trusted.
    """
    import enum
    import typing

    from reasoning_gym.factory import DATASETS

    if family not in DATASETS:
        raise KeyError(f"{family!r} is not a registered reasoning-gym dataset")
    hints = typing.get_type_hints(DATASETS[family][1])
    out = {}
    for key, value in config.items():
        hint = hints.get(key)
        if hint is None:
            continue
        if isinstance(hint, type) and issubclass(hint, enum.Enum) and not isinstance(value, hint):
            value = hint(value)
        elif typing.get_origin(hint) is tuple and isinstance(value, list):
            value = tuple(value)
        out[key] = value
    return out


@lru_cache(maxsize=256)
def _dataset(family: str, config_json: str):
    import reasoning_gym  # imported lazily: a second or so, needed only for scored families

    return reasoning_gym.create_dataset(family, **_typed_config(family, json.loads(config_json)))


def regenerate(family: str, key: TaskKey) -> tuple[dict | None, str]:
    """The reasoning-gym entry behind a task, or (None, why not)."""
    config_json, index = key
    if not config_json or not index.isdigit():
        return None, "traces carry no generator config/index"
    try:
        return _dataset(family, config_json)[int(index)], ""
    except Exception as exc:  # unknown family, config the installed version rejects, bad index
        return None, f"{type(exc).__name__}: {exc}"


def build_families(
    before_rows: Iterable[dict], after_rows: Iterable[dict]
) -> dict[str, Family]:
    """Group both sides by family and task; attach a scorer wherever one can be regenerated.

    Infra-error rows are dropped (the infrastructure failed, not the model); other errors stay
    and score 0, the platform's ``reward_infra_dropped`` convention.
    """
    families: dict[str, Family] = {}
    questions: dict[tuple[str, TaskKey], str | None] = {}
    for side, rows in (("before", before_rows), ("after", after_rows)):
        for row in rows:
            if row.get("is_infra_error"):
                continue
            name = row.get("task_family") or row.get("benchmark") or "unknown"
            fam = families.setdefault(name, Family(name))
            key = task_key(row)
            getattr(fam, side).setdefault(key, []).append(
                Attempt(row.get("answer"), _response(row), row.get("reward"), row.get("conversation"))
            )
            questions.setdefault((name, key), row.get("question"))
            if key not in fam.entries:  # pseudo entry until (unless) the real one is regenerated
                fam.entries[key] = {
                    "question": row.get("question") or "",
                    "answer": row.get("expected_answer"),
                    "metadata": {},
                }
    for fam in families.values():
        _attach_scorer(fam, questions)
    return families


def _response(row: dict) -> str | None:
    return last_assistant_message(row.get("conversation")) or row.get("answer")


def _attach_scorer(fam: Family, questions: dict) -> None:
    """Use the family scorer only if every task regenerates to the very question in the traces.

    A different reasoning-gym version can generate different tasks from the same seed; scoring
    against those would be silently wrong, so the family falls back to the recorded rewards.
    """
    regenerated = {}
    for key in fam.entries:
        entry, why = regenerate(fam.name, key)
        if entry is None:
            fam.scorer_note = f"no scorer ({why}); using recorded rewards"
            return
        seen = questions.get((fam.name, key))
        if seen and seen.strip() != entry["question"].strip():
            fam.scorer_note = (
                "no scorer: regenerated question differs from the traces (reasoning-gym version?);"
                " using recorded rewards"
            )
            return
        regenerated[key] = entry
    fam.entries.update(regenerated)
    fam.scored = True
    fam.scorer_note = f"reasoning-gym {fam.name}.score_answer on regenerated entries"
